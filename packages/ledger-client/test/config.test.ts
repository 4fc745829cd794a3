/**
 * Making clients: default base URLs by network (an explicit base URL wins), and `layerConfig`
 * reading the environment.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit, Layer, Redacted } from "effect"
import { LedgerClient, Network } from "../src/index.js"
import { stats } from "./support.js"

const fromEnv = (env: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env }))

const parse = (env: Record<string, string>) => Effect.exit(LedgerClient.config.parse(ConfigProvider.fromEnv({ env })))

const clientFrom = <E>(clientLayer: Layer.Layer<LedgerClient.LedgerClient, E>) =>
  Effect.provide(LedgerClient.LedgerClient, clientLayer)

describe("LedgerClient construction", () => {
  it.effect("the default base URL follows the network; an explicit base URL wins", () =>
    Effect.gen(function*() {
      const mainnet = yield* clientFrom(LedgerClient.layer({ apiKey: "key" }))
      assert.strictEqual(mainnet.network, "mainnet")
      assert.strictEqual(mainnet.baseUrl, "https://mainnet-aptos-api.moralis.io")
      const testnet = yield* clientFrom(LedgerClient.layer({ apiKey: "key", network: "testnet" }))
      assert.strictEqual(testnet.network, "testnet")
      assert.strictEqual(testnet.baseUrl, Network.defaultBaseUrls.testnet)
      const proxied = yield* clientFrom(LedgerClient.layer({ apiKey: "key", network: "testnet", baseUrl: "https://proxy.local/aptos" }))
      assert.strictEqual(proxied.network, "testnet")
      assert.strictEqual(proxied.baseUrl, "https://proxy.local/aptos")
    }))

  it.effect("config reads the environment", () =>
    Effect.gen(function*() {
      const minimal = yield* LedgerClient.config.parse(ConfigProvider.fromEnv({ env: { MORALIS_API_KEY: "secret" } }))
      assert.strictEqual(minimal.network, "mainnet")
      assert.isTrue(Redacted.isRedacted(minimal.apiKey))
      assert.strictEqual(Redacted.value(minimal.apiKey as Redacted.Redacted<string>), "secret")
      assert.isUndefined(minimal.baseUrl)
      assert.isUndefined(minimal.totalTimeout)
      assert.isUndefined(minimal.rateLimit)
      const full = yield* LedgerClient.config.parse(ConfigProvider.fromEnv({
        env: {
          MORALIS_API_KEY: "secret",
          CHAINQUERY_LEDGER_NETWORK: "testnet",
          CHAINQUERY_LEDGER_BASE_URL: "http://127.0.0.1:1/aptos/testnet",
          CHAINQUERY_TIMEOUT: "15 seconds",
          CHAINQUERY_UNITS_PER_SECOND: "40"
        }
      }))
      assert.strictEqual(full.network, "testnet")
      assert.strictEqual(full.baseUrl, "http://127.0.0.1:1/aptos/testnet")
      assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(full.totalTimeout!)), 15_000)
      assert.deepStrictEqual(full.rateLimit, { unitsPerSecond: 40 })
      assert.notInclude(String(full.apiKey), "secret")
    }))

  it.effect("config fails without a key, with an unknown network or a bad number", () =>
    Effect.gen(function*() {
      assert.isTrue(Exit.isFailure(yield* parse({})))
      assert.isTrue(Exit.isFailure(yield* parse({ MORALIS_API_KEY: "k", CHAINQUERY_LEDGER_NETWORK: "devnet" })))
      assert.isTrue(Exit.isFailure(yield* parse({ MORALIS_API_KEY: "k", CHAINQUERY_UNITS_PER_SECOND: "-3" })))
      assert.isTrue(Exit.isFailure(yield* parse({ MORALIS_API_KEY: "k", CHAINQUERY_TIMEOUT: "soon" })))
      const failed = yield* Effect.exit(clientFrom(LedgerClient.layerConfig().pipe(Layer.provide(fromEnv({})))))
      assert.isTrue(Exit.isFailure(failed))
    }))

  layer(Simulator.layer({ seed: 5, indexing: false, history: 10 }), { excludeTestServices: true })((test) => {
    test.effect("layerConfig: a client from the environment reads the network it names", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* clientFrom(LedgerClient.layerConfig({ retry: { times: 0 } }).pipe(Layer.provide(fromEnv({
          MORALIS_API_KEY: sim.apiKey,
          CHAINQUERY_LEDGER_NETWORK: "testnet",
          CHAINQUERY_LEDGER_BASE_URL: sim.ledgerUrl.testnet,
          CHAINQUERY_TIMEOUT: "5 seconds"
        }))))
        assert.strictEqual(ledger.network, "testnet")
        const before = yield* stats
        const page = yield* ledger.getCoinsByNameRange({ limit: 3 })
        assert.strictEqual(page.result.length, 3)
        const after = yield* stats
        assert.strictEqual(after.requests.byNetwork.testnet - before.requests.byNetwork.testnet, 1)
        assert.strictEqual(after.requests.byNetwork.mainnet, before.requests.byNetwork.mainnet)
      }))
  })
})
