/**
 * `layerConfig`: the client configured from the environment (`MORALIS_API_KEY`,
 * `CHAINQUERY_EVM_BASE_URL`, `CHAINQUERY_TIMEOUT`, `CHAINQUERY_UNITS_PER_SECOND`), against the
 * simulator.
 */
import type { Errors } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { type Config, ConfigProvider, Effect, Layer, Option, Redacted } from "effect"
import { EvmClient } from "../src/index.js"

/** The client of `layerConfig(options)` with `env` as the environment. */
const fromEnv = (
  env: Record<string, string>,
  options: Parameters<typeof EvmClient.layerConfig>[0] = {}
): Effect.Effect<EvmClient.Service, Config.ConfigError | Errors.InvalidConfig> =>
  Effect.provide(
    EvmClient.EvmClient,
    EvmClient.layerConfig(options).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
  )

describe("EvmClient.layerConfig", () => {
  layer(Simulator.layer({ seed: 2, indexing: false, history: 10, chains: ["0x1"] }), { excludeTestServices: true })((it) => {
    it.effect("reads the key, the base URL and the attempt timeout from the environment", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const env = {
          MORALIS_API_KEY: sim.apiKey,
          CHAINQUERY_EVM_BASE_URL: sim.evmUrl,
          CHAINQUERY_TIMEOUT: "3 seconds",
          CHAINQUERY_UNITS_PER_SECOND: "1000"
        }
        const client = yield* fromEnv(env, { retry: { times: 0 } })
        const block = yield* client.getBlock({ block: sim.world.evm.chain("0x1").head, chain: "eth" })
        assert.isTrue(Option.isSome(block))
        yield* Effect.orDie(sim.setFaults({ routes: { getBlock: { latency: { probability: 1, ms: 8000 } } } }))
        const error = yield* Effect.flip(client.getBlock({ block: 1 })).pipe(Effect.ensuring(Effect.orDie(sim.setFaults({}))))
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "Timeout", "CHAINQUERY_TIMEOUT is the attempt timeout")
      }))

    it.effect("CHAINQUERY_UNITS_PER_SECOND is the client's compute-unit budget", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* fromEnv({ MORALIS_API_KEY: sim.apiKey, CHAINQUERY_EVM_BASE_URL: sim.evmUrl, CHAINQUERY_UNITS_PER_SECOND: "20" })
        const head = sim.world.evm.chain("0x1").head
        const start = Date.now()
        // getBlock weighs 10 units: two fit in the first second's 20, the third waits ~500 ms.
        for (let i = 0; i < 3; i++) yield* client.getBlock({ block: head - i, chain: "eth" })
        assert.isAtLeast(Date.now() - start, 450)
      }))

    it.effect("the key is read as a Redacted", () =>
      Effect.gen(function*() {
        const options = yield* EvmClient.config.pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env: { MORALIS_API_KEY: "sk-from-env" } }))
        )
        assert.isTrue(Redacted.isRedacted(options.apiKey))
        assert.notInclude(String(options.apiKey), "sk-from-env")
        assert.strictEqual(options.baseUrl, undefined)
        assert.strictEqual(options.rateLimit, undefined)
      }))

    it.effect("a missing key or a bad setting fails the layer with a ConfigError", () =>
      Effect.gen(function*() {
        const missing = yield* Effect.flip(fromEnv({ CHAINQUERY_EVM_BASE_URL: "http://127.0.0.1:1" }))
        assert.strictEqual(missing._tag, "ConfigError")
        assert.include(String(missing), "MORALIS_API_KEY")
        const badRate = yield* Effect.flip(fromEnv({ MORALIS_API_KEY: "k", CHAINQUERY_UNITS_PER_SECOND: "-3" }))
        assert.include(String(badRate), "CHAINQUERY_UNITS_PER_SECOND")
        const badTimeout = yield* Effect.flip(fromEnv({ MORALIS_API_KEY: "k", CHAINQUERY_TIMEOUT: "soon" }))
        assert.include(String(badTimeout), "CHAINQUERY_TIMEOUT")
      }))
  })
})
