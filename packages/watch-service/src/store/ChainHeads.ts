/**
 * Each chain's head as the scans found it (the newest block the data service had indexed), one
 * row per chain: what a stream's coverage is measured against ("how far behind the head") by every
 * runner, not only the one that scans. A scan records a head when it moves, not every cycle.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Scope } from "../model/Scopes.js"

/**
 * How long a recorded head holds against a lower one: scans of one chain with different
 * confirmations read the head at different moments, so a lower head written just after a higher
 * one is a stale read, refused; a head that stays lower for this long is the chain's (a
 * reorganisation to a shorter chain, or another data service).
 *
 * @example
 * ```ts
 * import { ChainHeads } from "@chainquery/watch-service"
 *
 * ChainHeads.lowerAfterSeconds // 60
 * ```
 * @since 0.5.0
 */
export const lowerAfterSeconds = 60

/**
 * Records `head` as `scope`'s (an EVM chain's), with the time it was first found (the same head
 * recorded again keeps its time); a lower head than the one recorded less than
 * {@link lowerAfterSeconds} ago is refused. Answers whether the row holds `head` now: a scan that
 * was refused offers its head again at its next cycle, so a lower head that stays is taken.
 *
 * @example
 * ```ts
 * import { ChainHeads } from "@chainquery/watch-service"
 *
 * const recorded = ChainHeads.record("0x1", 21_000_000n)
 * ```
 * @since 0.5.0
 */
export const record = (scope: Scope, head: bigint): Effect.Effect<boolean, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO chain_heads (scope, head, seen_at) VALUES (${scope}, ${String(head)}, now())
      ON CONFLICT (scope) DO UPDATE SET head = excluded.head,
        seen_at = CASE WHEN chain_heads.head = excluded.head THEN chain_heads.seen_at ELSE excluded.seen_at END
      WHERE chain_heads.head <= excluded.head
        OR chain_heads.seen_at < now() - make_interval(secs => ${lowerAfterSeconds})
      RETURNING 1 AS held`.pipe(
        Effect.map((rows) => rows.length > 0)
      ))

/**
 * A scan's writer of heads: records a head only when it differs from the last one the row took
 * (see {@link record}), so that a head that does not move costs no write; a head refused (or not
 * written, the database down) is written again when offered again, at the scan's next cycle.
 *
 * @example
 * ```ts
 * import { ChainHeads } from "@chainquery/watch-service"
 *
 * const write = ChainHeads.writerOf("0x1")
 * const cycle = write(21_000_000n)
 * ```
 * @since 0.5.0
 */
export const writerOf = (scope: Scope): (head: bigint) => Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> => {
  let recorded: bigint | undefined
  return (head) =>
    head === recorded ? Effect.void : Effect.map(record(scope, head), (held) => {
      if (held) recorded = head
    })
}
