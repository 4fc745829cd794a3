/**
 * The API key never leaves the request header: not in a log line or its annotations, not in a
 * span's name, attributes or events (even with every HTTP header recorded), not in an error's
 * message, `String()`, JSON or stack, not in a pretty-printed cause, for a successful run, a 401
 * and a 5xx run.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Logger, Redacted, References, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { clientWays, simulatorWithClient } from "./support/fixtures.js"

const secret = "sk-secret-4d2f"

/** JSON that copes with bigints, Maps and cycles. */
const dump = (value: unknown): string => {
  const seen = new WeakSet<object>()
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`
    if (v instanceof Map) return Object.fromEntries(v)
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[cycle]"
      seen.add(v)
    }
    return v
  }) ?? String(value)
}

describe("EvmClient secrets", () => {
  layer(simulatorWithClient({ seed: 9, indexing: false, history: 10, chains: ["0x1"], apiKey: secret }), { excludeTestServices: true })((it) => {
    it.effect.each(clientWays)("no trace of the API key in logs, spans or errors, $name", (way) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* way.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey })
        const head = sim.world.evm.chain("0x1").head
        const logs: Array<string> = []
        const spans: Array<Tracer.NativeSpan> = []
        const recorder = Logger.make((options) => {
          logs.push(Logger.formatJson.log(options))
          logs.push(Logger.formatLogFmt.log(options))
        })
        const tracer = Tracer.make({
          span(options) {
            const span = new Tracer.NativeSpan(options)
            spans.push(span)
            return span
          }
        })
        // The old key is the secret with a suffix: a leak of it would contain the secret.
        const stale = yield* way.make({ baseUrl: sim.evmUrl, apiKey: Redacted.make(`${secret}-old`) })

        const exits = yield* Effect.gen(function*() {
          const ok = yield* Effect.exit(client.getBlock({ block: head, chain: "eth" }))
          const unauthorized = yield* Effect.exit(stale.getNFTOwners({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }))
          yield* Effect.orDie(sim.setFaults({ routes: { getBlock: { serverError: 1 } } }))
          const failing = yield* Effect.exit(client.getBlock({ block: head, chain: "eth" }, { retry: { times: 1, base: "10 millis" } })).pipe(
            Effect.ensuring(Effect.orDie(sim.setFaults({})))
          )
          const failures: ReadonlyArray<Exit.Exit<unknown, unknown>> = [unauthorized, failing]
          for (const exit of failures) {
            if (Exit.isFailure(exit)) {
              yield* Effect.logError("call failed", exit.cause)
              yield* Effect.logWarning(Cause.squash(exit.cause)).pipe(Effect.annotateLogs({ error: Cause.squash(exit.cause) }))
            }
          }
          yield* Effect.logDebug("client options", { apiKey: Redacted.make(secret) })
          return { ok, unauthorized, failing }
        }).pipe(
          Effect.provide(Logger.layer([recorder])),
          Effect.provideService(References.MinimumLogLevel, "All"),
          Effect.provideService(Tracer.Tracer, tracer),
          Effect.provideService(HttpClient.TracerHeaderFilter, () => true)
        )

        assert.isTrue(Exit.isSuccess(exits.ok), "the key was sent and accepted")
        const texts: Array<string> = [...logs]
        const failures: ReadonlyArray<Exit.Exit<unknown, unknown>> = [exits.unauthorized, exits.failing]
        for (const exit of failures) {
          assert.isTrue(Exit.isFailure(exit))
          if (!Exit.isFailure(exit)) continue
          const error = Cause.squash(exit.cause) as Error
          texts.push(String(error), error.message, error.stack ?? "", dump(error), JSON.stringify(error), Cause.pretty(exit.cause), dump(exit))
        }
        const unauthorized = Cause.squash((exits.unauthorized as Exit.Failure<unknown, unknown>).cause) as { readonly _tag: string }
        const failing = Cause.squash((exits.failing as Exit.Failure<unknown, unknown>).cause) as { readonly _tag: string }
        assert.strictEqual(unauthorized._tag, "Unauthorized")
        assert.strictEqual(failing._tag, "ServerError")
        for (const span of spans) texts.push(span.name, dump([...span.attributes]), dump(span.events))

        // The checks looked at something: log lines, client spans with their request headers.
        assert.isAtLeast(logs.length, 6)
        const headerAttributes = spans.flatMap((span) => [...span.attributes].filter(([key]) => key === "http.request.header.x-api-key"))
        assert.strictEqual(headerAttributes.length >= 4, way.clientSpans, "one per HTTP request, where the HttpClient has spans")
        assert.isTrue(spans.some((span) => span.name === "chainquery.getBlock"))

        for (const text of texts) assert.notInclude(text, secret)
      }))
  })
})
