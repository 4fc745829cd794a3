/**
 * EIP-55 mixed-case checksum for Ethereum addresses: a hex letter of the address is
 * upper-cased when the matching nibble of keccak256(lowercase hex address) is 8 or more.
 */
import { keccak256Hex } from "./keccak256.js"

const LOWER_HEX_40 = /^[0-9a-f]{40}$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * The EIP-55 checksummed form of an address given as 40 lowercase hex characters without `0x`.
 * Throws a `RangeError` when the input is not exactly that.
 *
 * @example
 * toChecksumAddress("5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
 * // "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
 */
export function toChecksumAddress(lowerHex40: string): string {
  if (!LOWER_HEX_40.test(lowerHex40)) {
    throw new RangeError(`expected 40 lowercase hex characters without 0x, got "${lowerHex40}"`)
  }
  const hash = keccak256Hex(lowerHex40)
  let result = "0x"
  for (let i = 0; i < lowerHex40.length; i++) {
    const char = lowerHex40.charAt(i)
    // Digits have no case; letters are upper-cased where the hash nibble has its high bit set.
    result += parseInt(hash.charAt(i), 16) >= 8 ? char.toUpperCase() : char
  }
  return result
}

/**
 * Whether `address` ("0x" + 40 hex characters) passes the EIP-55 check. All-lowercase and
 * all-uppercase addresses carry no checksum and are accepted; a mixed-case address must equal
 * its checksummed form exactly. Anything not shaped like an address is rejected.
 *
 * @example
 * isValidChecksum("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed") // true
 * isValidChecksum("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") // true (no checksum)
 * isValidChecksum("0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed") // false
 */
export function isValidChecksum(address: string): boolean {
  if (!ADDRESS.test(address)) return false
  const body = address.slice(2)
  const lower = body.toLowerCase()
  if (body === lower || body === body.toUpperCase()) return true
  return toChecksumAddress(lower) === address
}
