/**
 * Times read from PostgreSQL as epoch milliseconds, whatever the server's `DateStyle` (its text
 * form of a `timestamptz` is not always ISO 8601).
 *
 * @internal
 */
import { DateTime } from "effect"

/** The SQL of a time column read as epoch milliseconds (text), under its own name. */
export const millis = (column: string): string => `(extract(epoch FROM ${column}) * 1000)::bigint::text AS ${column}`

/** A time read with {@link millis}. */
export const utcOf = (text: string): DateTime.Utc => DateTime.makeUnsafe(Number(text))
