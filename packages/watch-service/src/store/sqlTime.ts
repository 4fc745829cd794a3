/**
 * Times read from PostgreSQL as epoch milliseconds, whatever the server's `DateStyle` (its text
 * form of a `timestamptz` is not always ISO 8601).
 *
 * @internal
 */
import { DateTime } from "effect"

/** The SQL of a time read as epoch milliseconds (text). */
export const epochMillis = (time: string): string => `(extract(epoch FROM ${time}) * 1000)::bigint::text`

/** The SQL of a time column read as epoch milliseconds (text), under its own name. */
export const millis = (column: string): string => `${epochMillis(column)} AS ${column}`

/** A time read with {@link millis}. */
export const utcOf = (text: string): DateTime.Utc => DateTime.makeUnsafe(Number(text))
