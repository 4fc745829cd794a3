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

  it("hashes inputs around and across the 136-byte rate boundary", () => {
    const hashes = [135, 136, 137, 200, 272].map((length) => keccak256Hex("a".repeat(length)))
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(new Set(hashes).size).toBe(hashes.length)
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
