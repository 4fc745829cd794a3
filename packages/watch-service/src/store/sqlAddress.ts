/**
 * Wallet addresses as `stream_wallets` stores them: the bytes (20 for an EVM address, 32 for an
 * Aptos one), not the text. Every address the service takes is canonical (`0x` and lower-case
 * hex, Aptos padded to 64 digits), so the text is the bytes written `0x` + hex, and back; bytes
 * sort as their text does (same length, hex digits in order). An address costs 21 bytes where its
 * text cost 43, in the table and in its key.
 *
 * @internal
 */
import type { SqlClient, Statement } from "effect/sql"

/**
 * The SQL of an address in text (a column or expression) as the bytes it is stored as.
 *
 * `addressBytes("x.address")` is `decode(substr(x.address, 3), 'hex')`.
 */
export const addressBytes = (text: string): string => `decode(substr(${text}, 3), 'hex')`

/**
 * The SQL of a stored address (a column or expression) read as its text.
 *
 * `addressText("w.address")` is `('0x' || encode(w.address, 'hex'))`.
 */
export const addressText = (bytes: string): string => `('0x' || encode(${bytes}, 'hex'))`

/**
 * The SQL of an address given as a value (a parameter) or as a fragment of SQL (a column of
 * another table), as the bytes it is stored as.
 */
export const addressBytesOf = (sql: SqlClient.SqlClient, address: string | Statement.Fragment): Statement.Fragment =>
  sql`decode(substr(${address}::text, 3), 'hex')`
