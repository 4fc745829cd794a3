/**
 * Reading decimal integer text (`"17715655"`, `"-3"`, a 77-digit token id) as a `bigint`, cheaply.
 * `BigInt(text)` costs about as much for `"0"` as for an 8-digit number,
 * and most amounts on the wire are short: text of up to 15 digits (always exact as a double) is
 * read digit by digit into a number, and the few values under 1024 come from a table of shared
 * bigints (bigints are immutable primitives, so sharing them is invisible). Longer text is handed to
 * `BigInt` once its ends are checked.
 *
 * @internal
 */

/** The longest digit run that is always exact as a double (2^53 has 16 digits). */
const exactDigits = 15

const isDigit = (code: number): boolean => code >= 48 && code <= 57

/**
 * Long text goes to `BigInt`, which accepts exactly an optional sign and decimal digits, except
 * that it also takes surrounding white space, a `+` sign, a `0x`/`0o`/`0b` prefix and `""`. Those
 * are ruled out by the first two characters after the sign and the last one being digits (the
 * caller has seen the sign, and the text is long); anything else `BigInt` rejects by throwing.
 * Cheaper than a regular expression over the whole text.
 */
const longInteger = (text: string, start: number): bigint | undefined => {
  if (!isDigit(text.charCodeAt(start)) || !isDigit(text.charCodeAt(start + 1)) || !isDigit(text.charCodeAt(text.length - 1))) {
    return undefined
  }
  try {
    return BigInt(text)
  } catch {
    return undefined
  }
}

const small: ReadonlyArray<bigint> = Array.from({ length: 1024 }, (_, i) => BigInt(i))

/**
 * The integer that `text` spells (`-?[0-9]+`, ASCII digits only, leading zeros allowed), or
 * `undefined` when it spells none. The same as `/^-?\d+$/.test(text) ? BigInt(text) : undefined`.
 *
 * @example
 * integerText("17715655") // 17715655n
 * integerText("-0") // 0n
 * integerText("1e3") // undefined
 */
export const integerText = (text: string): bigint | undefined => {
  const length = text.length
  const start = length > 0 && text.charCodeAt(0) === 45 ? 1 : 0 // "-"
  if (length === start) return undefined
  if (length - start > exactDigits) return longInteger(text, start)
  let value = 0
  for (let i = start; i < length; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return undefined
    value = value * 10 + digit
  }
  if (start === 1) return BigInt(-value) // BigInt(-0) is 0n, as BigInt("-0")
  return value < small.length ? small[value] : BigInt(value)
}
