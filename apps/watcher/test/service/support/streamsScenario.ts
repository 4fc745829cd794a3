/**
 * The scenario of the delivery tests: three streams whose wallets overlap, on eth, created on a
 * running service; the simulator driven 100+ blocks; then each stream's received events checked
 * against the simulator's ground truth for its wallets.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { assert } from "vitest"
import { busiestEvm, evmTruth } from "../../../../../packages/watch/test/support/engineHarness.js"
import { headOf, type Sim } from "../../e2e/support/e2e.js"
import { ProvingReceiver } from "./provingReceiver.js"
import { call, freshDatabase, type Receiver, serveArgs, type Service, startService, until } from "./serveE2e.js"

/** The NFT kinds the streams ask for (their ground truth is the simulator's transfers). */
export const nftKinds = ["nft.received", "nft.sent", "retracted"]

/** A stream of the scenario: its id, wallets, and the block each wallet is covered from (as the API answered). */
export interface ScenarioStream {
  readonly id: string
  readonly wallets: ReadonlyArray<string>
  readonly coveredFrom: ReadonlyMap<string, bigint>
}

/** The simulator's eth head block. */
export const ethHead = async (sim: Sim): Promise<bigint> => (await headOf(sim))({ family: "evm", chain: "0x1", address: "0x" as never })

/** The scan's checkpoints of eth (namespace `scan:0x1:0`), by address. */
export const scanPositions = (databaseUrl: string): Promise<Map<string, bigint>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const exists = yield* sql<{ ok: boolean }>`SELECT to_regclass('watch_checkpoints') IS NOT NULL AS ok`
      if (exists[0]?.ok !== true) return new Map<string, bigint>()
      const rows = yield* sql<{ wallet: string; position: string }>`
        SELECT wallet, position::text FROM watch_checkpoints WHERE namespace = 'scan:0x1:0'`
      return new Map(rows.map((row) => [row.wallet, BigInt(row.position)]))
    }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })))
  )

/** The block each wallet is covered from, by address, as an answer to adding wallets states it. */
export const coveredFromOf = (answer: { readonly coverage: ReadonlyArray<{ readonly wallet: string; readonly coveredFrom: string }> }): ReadonlyMap<string, bigint> =>
  new Map(answer.coverage.map((c) => [c.wallet.slice(c.wallet.indexOf(":") + 1), BigInt(c.coveredFrom)]))

/**
 * Creates the three streams (wallets 0-3, 2-4, 0/4/5 of the six busiest) and registers their
 * secrets with the receiver; each wallet is covered from no later than the block after the head
 * when it was added.
 */
export const createStreams = async (service: Service | string, sim: Sim, receiver: Receiver): Promise<Array<ScenarioStream>> => {
  const wallets = busiestEvm(sim, "0x1", 6).map((wallet) => wallet.address)
  const sets = [[0, 1, 2, 3], [2, 3, 4], [0, 4, 5]].map((indexes) => indexes.map((index) => wallets[index]!))
  const streams: Array<ScenarioStream> = []
  for (const [index, set] of sets.entries()) {
    const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: nftKinds, chains: ["eth"], description: `stream ${index}` })
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    receiver.secrets.set(created.body.id, created.body.secret)
    const head = await ethHead(sim)
    const added = await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: set.map((address) => `eth:${address}`) })
    assert.strictEqual(added.status, 200, JSON.stringify(added.body))
    const coveredFrom = coveredFromOf(added.body)
    for (const address of set) assert.isTrue(coveredFrom.get(address)! <= head + 1n, `${address} is covered from the block after the head at the latest`)
    streams.push({ id: created.body.id, wallets: set, coveredFrom })
  }
  return streams
}

/** Waits until the scan has every wallet at `head`. */
export const scannedTo = (databaseUrl: string, wallets: ReadonlyArray<string>, head: bigint, timeoutMs: number) =>
  until(`every wallet scanned to block ${head}`, async () => {
    const positions = await scanPositions(databaseUrl)
    return wallets.every((wallet) => positions.get(wallet) === head)
  }, timeoutMs)

/** Waits until no stream has a pending delivery. */
export const delivered = (service: Service | string, streams: ReadonlyArray<ScenarioStream>, timeoutMs: number) =>
  until("every delivery done", async () => {
    for (const stream of streams) {
      const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
      if (stats.status !== 200 || stats.body.pending !== 0) return false
    }
    return true
  }, timeoutMs)

/**
 * The simulator's ground truth of a stream over its wallets' coverage: each wallet's events from
 * the block it is covered from up to `to`.
 */
export const truthOf = (sim: Sim, stream: ScenarioStream, to: bigint) =>
  Effect.runPromise(Effect.forEach(stream.wallets, (address) =>
    evmTruth(sim, "0x1", [{ family: "evm", chain: "0x1", address: address as never }], stream.coveredFrom.get(address)! - 1n, to))).then(
      (perWallet) => perWallet.flat()
    )

/**
 * Checks each stream: its events (de-duplicated by id, as first received with a 200) are exactly
 * the ground truth of its wallets from their `coveredFrom` up to `to`, in chain order; every attempt was signed
 * right; every attempt of one delivery carried the same `webhook-id`; no delivery failed.
 */
export const checkStreams = async (
  service: Service | string,
  sim: Sim,
  receiver: Receiver,
  streams: ReadonlyArray<ScenarioStream>,
  to: bigint
) => {
  assert.isTrue(receiver.attempts.every((attempt) => attempt.verified), "an attempt's signature did not verify")
  for (const stream of streams) {
    const truth = await truthOf(sim, stream, to)
    assert.isAbove(truth.length, 0, `stream ${stream.id} has no events to check`)
    const received = receiver.received(stream.id)
    assert.deepStrictEqual(received.map((event) => event.id).toSorted(), truth.map((event) => event.id).toSorted(), `stream ${stream.id}`)
    const order = received.map((event) => [BigInt(event.blockNumber ?? "0"), event.logIndex ?? 0] as const)
    for (let i = 1; i < order.length; i++) {
      const [block, log] = order[i]!
      const [previousBlock, previousLog] = order[i - 1]!
      assert.isTrue(block > previousBlock || (block === previousBlock && log >= previousLog), `stream ${stream.id}: event ${i} out of chain order: ${order.slice(Math.max(0, i - 3), i + 2).map(([b, l]) => `${b}/${l}`).join(" ")}; ${JSON.stringify(received.slice(i - 1, i + 1))}`)
    }
    const idsBySequence = new Map<number, Set<string>>()
    for (const attempt of receiver.attempts.filter((a) => a.streamId === stream.id)) {
      const ids = idsBySequence.get(attempt.sequence) ?? idsBySequence.set(attempt.sequence, new Set()).get(attempt.sequence)!
      ids.add(attempt.webhookId)
    }
    for (const [sequence, ids] of idsBySequence) assert.strictEqual(ids.size, 1, `stream ${stream.id}: delivery ${sequence} went out under several webhook-ids`)
    const failed = await call(service, "GET", `/v1/streams/${stream.id}/deliveries?status=failed`)
    assert.deepStrictEqual(failed.body.deliveries, [], `stream ${stream.id}: a delivery failed for good`)
  }
}

/**
 * The flags of a service that must not fail a batch for good by bad luck (twelve retries 200 ms
 * apart, a second to answer, no success rate), with a heartbeat every `heartbeat`.
 */
export const patientFlags = (heartbeat: string): Array<string> => [
  "--retry-schedule",
  Array.from({ length: 12 }, () => "200ms").join(","),
  "--delivery-timeout",
  "1s",
  "--min-success-rate",
  "0",
  "--heartbeat",
  heartbeat
]

/** A stream on eth holding `wallets`, created through `service`, its secret given to the receiver; its id, and the block each wallet is covered from. */
export const createEthStream = async (
  service: Service,
  receiver: { readonly url: string; readonly secrets: Map<string, string | ReadonlyArray<string>> },
  wallets: ReadonlyArray<string>
): Promise<ScenarioStream> => {
  const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: nftKinds, chains: ["eth"] })
  assert.strictEqual(created.status, 201, JSON.stringify(created.body))
  receiver.secrets.set(created.body.id, created.body.secret)
  const added = await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: wallets.map((address) => `eth:${address}`) })
  assert.strictEqual(added.status, 200, JSON.stringify(added.body))
  return { id: created.body.id as string, wallets, coveredFrom: coveredFromOf(added.body) }
}

/**
 * The simulator's faults that make a history take seconds while blocks keep coming: each trades
 * read (A4) answered 2 s late. A history reads one per slice, so its batches come at least 2 s
 * apart, longer than a heartbeat period of 1 s (`patientFlags("1s")`) plus an interval: a live
 * batch comes between any two. The live scans of streams of NFT transfers read no trades.
 */
export const historySlow = { routes: { getNFTTradesByWallet: { latency: { probability: 1, ms: 2_000 } } } } as const

/**
 * A fresh database, a proving receiver on 127.0.0.1 and `serve` on them with `patientFlags` (a
 * heartbeat a second), each undone by one of `cleanups` (the service killed, the receiver closed,
 * the database dropped).
 */
export const patientService = async (sim: Sim, cleanups: Array<() => Promise<void>>) => {
  const database = await freshDatabase()
  cleanups.push(database.drop)
  const receiver = new ProvingReceiver()
  await receiver.start()
  cleanups.push(() => receiver.close())
  const service = await startService(database.url, serveArgs(sim, patientFlags("1s")))
  cleanups.push(async () => void (await service.process.stop("SIGKILL")))
  return { database, receiver, service }
}
