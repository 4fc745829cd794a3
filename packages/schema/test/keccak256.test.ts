import { describe, expect, it } from "vitest"
import { isValidChecksum, toChecksumAddress } from "../src/internal/eip55.js"
import { keccak256, keccak256Hex } from "../src/internal/keccak256.js"

const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")

describe("keccak256", () => {
  it("hashes the empty string", () => {
    expect(keccak256Hex("")).toBe("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470")
  })

  it("hashes abc", () => {
    expect(keccak256Hex("abc")).toBe("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45")
  })

  it("hashes the quick brown fox", () => {
    expect(keccak256Hex("The quick brown fox jumps over the lazy dog")).toBe(
      "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"
    )
  })

  it("returns 32 bytes and agrees with keccak256Hex", () => {
    const digest = keccak256(new TextEncoder().encode("abc"))
    expect(digest).toBeInstanceOf(Uint8Array)
    expect(digest.length).toBe(32)
    expect(toHex(digest)).toBe(keccak256Hex("abc"))
  })

  it("hashes Ethereum's function selector and event topic inputs", () => {
    // The ERC-20 `transfer` selector is 0xa9059cbb, and its `Transfer` event topic is well known.
    expect(keccak256Hex("transfer(address,uint256)").slice(0, 8)).toBe("a9059cbb")
    expect(keccak256Hex("Transfer(address,address,uint256)")).toBe(
      "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
    )
  })

  // Known answers around and across the 136-byte rate boundary (one short of a block, exactly one,
  // one over, and the same around two blocks and three). Computed outside this repository with two
  // independent implementations that agreed on every value: `keccak_256` of @noble/hashes 2.0.1 and
  // `keccak256` of js-sha3 0.9.3 (both also give the empty, "abc" and Transfer vectors above).
  const boundary: ReadonlyArray<readonly [length: number, letters: string, ramp: string]> = [
    [135, "34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446", "cbdfd9dee5faad3818d6b06f95a219fd290b0e1706f6a82e5a595b9ce9faca62"],
    [136, "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e", "7ce759f1ab7f9ce437719970c26b0a66ff11fe3e38e17df89cf5d29c7d7f807e"],
    [137, "d869f639c7046b4929fc92a4d988a8b22c55fbadb802c0c66ebcd484f1915f39", "ac73d4fae68b8453f764007c1a20ce95994187861f0c3227a3a8e99a73a3b1db"],
    [271, "132f47effd6c8b1b299efa53fe68aece77ec8ae4eb2e294f668eec94f76001e1", "7c974895b2a88303ff2dc6b58f438ceb0b298cac91099ac0539cc0f477506191"],
    [272, "cf7fcd4f705ee749930d19ca84561a9bf62516bd90a471545fa2f49fdc7e63c8", "fdf2ec49e749960d3c8521a0219af8d03e30e2b3bf19bd16150ee0eaf133d66e"],
    [273, "5a7b8187d2778e614097fac3097573de1fee4d972304d3360796a857029bb176", "4f707289a9c3ccd0c4a51f2f17339f5dd171d371c04ff7783b735b5b22682eaf"],
    [408, "f763fe56a104e5c3ec0e4f311124923905d7f8e1dd03bdc91f2e6845ea523677", "4deeaefc26bf0becc5bf9603551584ca1d514238f2f84d0b6adb4bebde86ce61"]
  ]

  it.each(boundary)("hashes %i bytes to the known answers (\"a\" repeated, and bytes 0, 1, 2, ... mod 256)", (length, letters, ramp) => {
    expect(keccak256Hex("a".repeat(length))).toBe(letters)
    expect(toHex(keccak256(Uint8Array.from({ length }, (_, i) => i % 256)))).toBe(ramp)
  })

  it("is deterministic and ignores the input's position inside its buffer", () => {
    const bytes = new Uint8Array(200).map((_, i) => i)
    const backing = new Uint8Array(203)
    backing.set(bytes, 3)
    const view = backing.subarray(3)
    expect(toHex(keccak256(view))).toBe(toHex(keccak256(bytes)))
    expect(toHex(keccak256(bytes))).toBe(toHex(keccak256(bytes.slice())))
  })
})

/** Flips the case of the first hex letter in the address body. */
const flipFirstLetter = (address: string): string => {
  const i = address.slice(2).search(/[a-fA-F]/) + 2
  const char = address.charAt(i)
  const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()
  return address.slice(0, i) + flipped + address.slice(i + 1)
}

describe("EIP-55", () => {
  const vectors = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"
  ]

  it.each(vectors)("checksums %s", (address) => {
    expect(toChecksumAddress(address.slice(2).toLowerCase())).toBe(address)
  })

  it.each(vectors)("accepts %s and rejects it with one letter's case flipped", (address) => {
    expect(isValidChecksum(address)).toBe(true)
    const tampered = flipFirstLetter(address)
    expect(tampered).not.toBe(address)
    expect(isValidChecksum(tampered)).toBe(false)
  })

  it.each(vectors)("accepts %s in all-lowercase and all-uppercase", (address) => {
    const body = address.slice(2)
    expect(isValidChecksum(`0x${body.toLowerCase()}`)).toBe(true)
    expect(isValidChecksum(`0x${body.toUpperCase()}`)).toBe(true)
  })

  it("rejects strings that are not addresses", () => {
    expect(isValidChecksum("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).toBe(false)
    expect(isValidChecksum("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe")).toBe(false)
    expect(isValidChecksum("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg")).toBe(false)
  })

  it("refuses input that is not 40 lowercase hex characters", () => {
    expect(() => toChecksumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toThrow(RangeError)
    expect(() => toChecksumAddress("5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED")).toThrow(RangeError)
  })
})
