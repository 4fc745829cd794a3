/**
 * Test support: checkpoints put where a test needs them, as a scan's engine would have left them,
 * in the store's tables (`watch_marks`, `watch_wallets`: wallets that stand together share a
 * mark; `watch_checkpoints` is a view of them).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Moves every wallet of `namespace` to `block` (the scan reached it for all of them). */
export const scannedAllTo = (namespace: string, block: bigint | number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE watch_marks SET position = ${String(block)}::bigint WHERE namespace = ${namespace}`)

/** Moves one wallet of `namespace` to `block`, on a mark of its own (the scan read it alone). */
export const movedTo = (namespace: string, wallet: string, block: bigint | number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`WITH made AS (
        INSERT INTO watch_marks (namespace, scope, position, hash)
        SELECT namespace, scope, ${String(block)}::bigint, NULL FROM watch_wallets WHERE namespace = ${namespace} AND wallet = ${wallet}
        RETURNING id, scope)
      UPDATE watch_wallets w SET mark = made.id FROM made WHERE w.namespace = ${namespace} AND w.scope = made.scope AND w.wallet = ${wallet}`)

/** Gives `wallet` of `scope` a checkpoint at `block` in `namespace`, as if the scan had read it there and stopped. */
export const leftAt = (namespace: string, scope: string, wallet: string, block: bigint | number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`WITH made AS (
        INSERT INTO watch_marks (namespace, scope, position, hash) VALUES (${namespace}, ${scope}, ${String(block)}::bigint, NULL) RETURNING id)
      INSERT INTO watch_wallets (namespace, scope, wallet, mark, since) SELECT ${namespace}, ${scope}, ${wallet}, id, ${String(block)}::bigint FROM made`)
