/**
 * A stream's `PATCH` of `events` or `chains` is seen by the scanners, over the real API and stores:
 * what plans them (`Scanner.run`) reads the scans again only when the wallets' version moves, so a
 * change of what a scan must read or watch moves it, and the scans then read what the stream wants
 * now (a stream that adds `defi.*` gets the DeFi reading; one that leaves a chain leaves its scan).
 * A change of nothing a scan reads (the description, the URL) does not make them re-plan.
 */
import { assert, describe, it } from "@effect/vitest"
import { planOf, withApi } from "./support/apiFixtures.js"

const address = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const receiver = "http://127.0.0.1:9/hook"

describe("PATCH of a stream re-plans the scanners", () => {
  it.live("events: adding defi.* moves the version and the chain's scan reads DeFi; taking it out reads transfers only again", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, events: ["nft.received"], chains: ["eth"] } })
      assert.strictEqual((await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [`eth:${address}`] } })).status, 200)
      const before = await api.run(planOf("0x1"))
      assert.deepStrictEqual(before.scans, [{ confirmations: 0, readings: ["transfers"], wallets: [address] }])
      const described = await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { description: "mine", url: "http://127.0.0.1:10/hook" } })
      assert.strictEqual(described.status, 200, described.text)
      assert.strictEqual((await api.run(planOf("0x1"))).version, before.version, "a description or URL changes no scan")
      const defi = await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { events: ["nft.received", "defi.changed"] } })
      assert.strictEqual(defi.status, 200, defi.text)
      assert.deepStrictEqual(defi.body.events, ["nft.received", "defi.changed"])
      const withDefi = await api.run(planOf("0x1"))
      assert.notStrictEqual(withDefi.version, before.version, "a change of events moves the version the scanners re-plan on")
      assert.deepStrictEqual(withDefi.scans, [{ confirmations: 0, readings: ["transfers", "defi"], wallets: [address] }])
      await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { events: ["trade.bought"] } })
      const trades = await api.run(planOf("0x1"))
      assert.notStrictEqual(trades.version, withDefi.version)
      assert.deepStrictEqual(trades.scans, [{ confirmations: 0, readings: ["trades"], wallets: [address] }])
      assert.deepStrictEqual((await api.call("GET", `/v1/streams/${stream.id}`)).body.events, ["trade.bought"], "the change is stored")
    }))

  it.live("chains: leaving a chain moves the version and its scan no longer watches the stream's wallets; adding it back does", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, events: ["nft.received"], chains: ["eth", "polygon"] } })
      await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [`eth,polygon:${address}`] } })
      const before = await api.run(planOf("0x1"))
      assert.deepStrictEqual(before.scans, [{ confirmations: 0, readings: ["transfers"], wallets: [address] }])
      const polygonOnly = await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { chains: ["polygon"] } })
      assert.strictEqual(polygonOnly.status, 200, polygonOnly.text)
      const left = await api.run(planOf("0x1"))
      assert.notStrictEqual(left.version, before.version, "a change of chains moves the version the scanners re-plan on")
      assert.deepStrictEqual(left.scans, [], "no scan of eth is wanted any more")
      assert.deepStrictEqual((await api.run(planOf("0x89"))).scans, [{ confirmations: 0, readings: ["transfers"], wallets: [address] }])
      await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { chains: ["eth", "polygon"] } })
      const back = await api.run(planOf("0x1"))
      assert.notStrictEqual(back.version, left.version)
      assert.deepStrictEqual(back.scans, [{ confirmations: 0, readings: ["transfers"], wallets: [address] }])
    }))
})
