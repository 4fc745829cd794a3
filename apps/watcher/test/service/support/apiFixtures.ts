/**
 * What the tests of the management API share: a fresh API per test (`withApi`), the scanners' plan
 * of a chain as the scanner reads it (`planOf`), row counts, and a webhook receiver on 127.0.0.1
 * whose answer a test chooses and which records every batch it gets.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createServer, type Server } from "node:http"
import { readingsFor } from "../../../src/service/Scanner.js"
import type { Scope } from "../../../src/service/Scopes.js"
import { StreamStore } from "../../../src/service/StreamStore.js"
import { type Api, serviceApi } from "../serviceHarness.js"

/** Runs `body` with a fresh service API (options as `serviceApi`'s). */
export const withApi = (body: (api: Api) => Promise<void>, options?: Parameters<typeof serviceApi>[0]) =>
  Effect.scoped(Effect.flatMap(serviceApi(options), (api) => Effect.promise(() => body(api))))

/**
 * What the scanner of `scope` plans from (`Scanner.run`): the wallets' version it re-plans on, and
 * the scans it then runs (confirmations, the engine's readings) with the wallets each watches.
 */
export const planOf = (scope: Scope) =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const version = yield* streams.walletsVersion
    const scans = yield* Effect.forEach(yield* streams.scansOn(scope), ({ confirmations, kinds }) =>
      Effect.map(streams.watched(scope, confirmations), (wallets) => ({
        confirmations,
        readings: readingsFor(kinds),
        wallets: wallets.map((wallet): string => wallet.address)
      })))
    return { version, scans }
  })

/** How many rows `table` has (those of `streamId` when given). */
export const rowsOf = (table: string, streamId?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}
      WHERE ${streamId === undefined ? sql.literal("true") : sql`stream_id = ${streamId}`}`).pipe(Effect.map((rows) => rows[0]!.n))

/** A batch the receiver got: the stream, its sequence and its events' ids. */
export interface Received {
  readonly streamId: string
  readonly sequence: number
  readonly events: ReadonlyArray<string>
}

/** The receiver of `recordingReceiver`: where it listens, what it got, and the status it answers (settable). */
export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  readonly reply: { status: number }
}

/** A webhook receiver on 127.0.0.1 answering `reply.status` to every request and recording what it got; closed with the scope. */
export const recordingReceiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<Receiver & { readonly server: Server }>((resolve) => {
      const received: Array<Received> = []
      const reply = { status: 200 }
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const batch = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { streamId: string; sequence: number; events: Array<{ id: string }> }
          received.push({ streamId: batch.streamId, sequence: batch.sequence, events: batch.events.map((event) => event.id) })
          response.writeHead(reply.status).end()
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resolve({ url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`, received, reply, server })
      })
    })
  ),
  ({ server }) =>
    Effect.promise(() =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
    )
)
