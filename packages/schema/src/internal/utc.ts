/**
 * Building a `DateTime.Utc` from epoch milliseconds, fast. `DateTime.makeUnsafe(millis)` goes
 * through a `Date` and several type tests before it builds the value; a page of records builds one
 * per record. This builds the very same object directly: the prototype and own properties are
 * taken from a value Effect built, and the shortcut is used only when, at load, a value built
 * here has exactly the prototype, keys (in order) and property attributes of Effect's own;
 * otherwise (another Effect version) it is `DateTime.makeUnsafe`.
 *
 * @internal
 */
import { DateTime } from "effect"

const reference = DateTime.makeUnsafe(0)
const prototype: object | null = Object.getPrototypeOf(reference)
const hiddenParts: PropertyDescriptor = { value: undefined, enumerable: false, writable: true }

/**
 * Builds the value as Effect's own constructor does: its prototype, then `epochMilliseconds`, then
 * the hidden `partsUtc` cache (filled by Effect on first use).
 *
 * @example
 * direct(0) // DateTime.Utc 1970-01-01T00:00:00.000Z
 */
export const direct = (epochMillis: number): DateTime.Utc => {
  const value = Object.create(prototype) as { epochMilliseconds: number }
  value.epochMilliseconds = epochMillis
  Object.defineProperty(value, "partsUtc", hiddenParts)
  return value as unknown as DateTime.Utc
}

/**
 * Whether two objects have the same prototype and the same own properties (in order), attributes
 * and values included.
 *
 * @example
 * sameShape(direct(0), DateTime.makeUnsafe(0)) // true
 */
export const sameShape = (a: object, b: object): boolean => {
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const keys = Reflect.ownKeys(a)
  const other = Reflect.ownKeys(b)
  if (keys.length !== other.length || keys.some((key, i) => key !== other[i])) return false
  return keys.every((key) => {
    const x = Object.getOwnPropertyDescriptor(a, key)!
    const y = Object.getOwnPropertyDescriptor(b, key)!
    return x.enumerable === y.enumerable && x.writable === y.writable && x.configurable === y.configurable &&
      x.get === y.get && x.set === y.set && Object.is(x.value, y.value)
  })
}

/**
 * The `DateTime.Utc` at `epochMillis`, an integer within `Date`'s range (the caller checks it):
 * the same value as `DateTime.makeUnsafe(epochMillis)`, built by {@link direct} when the shapes
 * match.
 *
 * @example
 * utcFromEpochMillis(1689629279000) // DateTime.Utc 2023-07-17T21:27:59.000Z
 */
export const utcFromEpochMillis: (epochMillis: number) => DateTime.Utc = sameShape(direct(0), reference)
  ? direct
  : (epochMillis) => DateTime.makeUnsafe(epochMillis)
