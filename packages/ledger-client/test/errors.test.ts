/**
 * What goes wrong on the wire reaches the caller as typed errors: the service's 400 with its
 * message, 401 for a wrong key, 5xx retried until the service recovers, 429 with its
 * `Retry-After`, a truncated body retried, then `Transport` `MalformedBody`.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { RetryPolicy } from "@chainquery/transport"
import { Duration, Effect, Option, Redacted, Schedule, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { LedgerClient } from "../src/index.js"
import { sampleOf, stats, TestLayer, Testnet } from "./support.js"

/** Runs `effect` with faults set, clearing them afterwards whatever happens. */
const withFaults = <A, E, R>(faults: Simulator.FaultConfig, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    yield* Effect.orDie(sim.setFaults(faults))
    return yield* effect
  }).pipe(Effect.ensuring(Effect.flatMap(Simulator.Simulator, (sim) => Effect.orDie(sim.setFaults({})))))

describe("LedgerClient errors", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a cursor of another listing is the service's 400: BadRequest with its message", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const testnet = yield* Testnet
        const { wallets } = yield* sampleOf("mainnet")
        const first = yield* ledger.getWalletsNFTTransfers({ walletAddresses: [wallets[0]!], limit: 2 })
        const cursor = Option.getOrThrow(first.cursor)
        const before = (yield* stats).requests.total
        const foreign = yield* Effect.flip(ledger.getNFTByOwners({ ownerAddresses: [wallets[0]!], limit: 2, cursor }))
        assert.strictEqual(foreign._tag, "BadRequest")
        assert.include(foreign.message, "Invalid cursor")
        // Not retried: one request.
        assert.strictEqual((yield* stats).requests.total, before + 1)
        const otherNetwork = yield* Effect.flip(testnet.getWalletsNFTTransfers({ walletAddresses: [wallets[0]!], limit: 2, cursor }))
        assert.strictEqual(otherNetwork._tag, "BadRequest")
        assert.include(otherNetwork.message, "Invalid cursor")
        const garbage = yield* Effect.flip(ledger.getCoinsByNameRange({ limit: 2, cursor: "not-a-cursor" }))
        assert.strictEqual(garbage._tag, "BadRequest")
        assert.include(garbage.message, "Invalid cursor")
      }))

    it.effect("a wrong API key is Unauthorized (401), and the key appears nowhere in the error", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const before = (yield* stats).requests.total
        const ledger = yield* LedgerClient.make({ baseUrl: sim.ledgerUrl.mainnet, apiKey: Redacted.make("wrong-key-123") })
        const error = yield* Effect.flip(ledger.getCoinsByNameRange({ limit: 5 }))
        assert.strictEqual(error._tag, "Unauthorized")
        if (error._tag !== "Unauthorized") return
        assert.strictEqual(error.status, 401)
        assert.isTrue(error.message.length > 0)
        assert.notInclude(JSON.stringify(error), "wrong-key-123")
        assert.notInclude(String(error), "wrong-key-123")
        assert.strictEqual((yield* stats).requests.total, before + 1, "401 is not retried")
      }).pipe(Effect.provide(FetchHttpClient.layer)))

    it.effect("5xx then success: retried until the fault clears", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* LedgerClient.LedgerClient
        const before = yield* stats
        const page = yield* withFaults(
          { routes: { getCoinsByNameRange: { serverError: { probability: 1, statuses: [503] } } } },
          // The service recovers as the first failure is handed to the schedule, before the
          // retry: no race between a timer and the backoff.
          ledger.getCoinsByNameRange({ limit: 5 }, {
            retry: { schedule: RetryPolicy.schedule({ base: "10 millis" }).pipe(Schedule.tap(() => Effect.orDie(sim.setFaults({})))), times: 3 }
          })
        )
        assert.strictEqual(page.result.length, 5)
        const after = yield* stats
        assert.strictEqual(after.faults["serverError"]! - before.faults["serverError"]!, 1)
        assert.strictEqual(after.requests.total - before.requests.total, 2)
      }))

    it.effect("5xx that does not clear: ServerError with the status once the retries are spent", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const before = (yield* stats).requests.total
        const error = yield* withFaults(
          { routes: { getNFTCollections: { serverError: { probability: 1, statuses: [502] } } } },
          Effect.flip(ledger.getNFTCollections({ limit: 5 }, { retry: { times: 2, base: "10 millis" } }))
        )
        assert.strictEqual(error._tag, "ServerError")
        if (error._tag === "ServerError") assert.strictEqual(error.status, 502)
        assert.strictEqual((yield* stats).requests.total, before + 3, "the first attempt and 2 retries")
      }))

    it.effect("429 is RateLimited with the service's Retry-After", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        // A client of its own: a 429 pauses every call of the client that got it for Retry-After.
        const ledger = yield* LedgerClient.make({ baseUrl: sim.ledgerUrl.mainnet, apiKey: sim.apiKey })
        const error = yield* withFaults(
          { routes: { getNFTCollections: { rateLimited: { probability: 1, retryAfterSeconds: 7 } } } },
          Effect.flip(ledger.getNFTCollections({ limit: 5 }, { retry: { times: 0 } }))
        )
        assert.strictEqual(error._tag, "RateLimited")
        if (error._tag !== "RateLimited") return
        assert.isTrue(Option.isSome(error.retryAfter))
        assert.strictEqual(Duration.toMillis(Option.getOrThrow(error.retryAfter)), 7000)
      }).pipe(Effect.provide(FetchHttpClient.layer)))

    it.effect("a truncated body is retried; once the retries are spent it is Transport MalformedBody", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const { wallets } = yield* sampleOf("mainnet")
        const before = (yield* stats).requests.total
        const error = yield* withFaults(
          { routes: { getWalletsNFTTransfers: { truncated: 1 } } },
          Effect.flip(ledger.getWalletsNFTTransfers({ walletAddresses: [wallets[0]!], limit: 20 }, { retry: { times: 2, base: "10 millis" } }))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "MalformedBody")
        assert.include(error.message, "not valid JSON")
        assert.strictEqual((yield* stats).requests.total, before + 3, "the first attempt and 2 retries")
      }))

    it.effect("a stream of B3 pages with a third of them cut short: every record once, as without faults", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const { wallets } = yield* sampleOf("mainnet")
        const read = ledger.streamWalletsNFTTransfers(
          { walletAddresses: wallets.slice(0, 5), limit: 5 },
          // A third of the pages fail: 20 retries make a page that never gets through a 1 in 10^9 event.
          { call: { retry: { times: 20, base: "5 millis", cap: "10 millis" } } }
        ).pipe(Stream.map((transfer) => `${transfer.transaction_version}:${transfer.event_account_address}:${transfer.event_creation_number}:${transfer.event_sequence_number}`), Stream.runCollect)
        const clean = yield* read
        assert.isAbove(clean.length, 10, "several pages")
        const faulty = yield* withFaults({ routes: { getWalletsNFTTransfers: { truncated: 0.34 } } }, read)
        assert.deepStrictEqual(faulty, clean)
      }))
  })
})
