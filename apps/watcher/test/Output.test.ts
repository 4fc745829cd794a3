/**
 * Output: NDJSON is the schema's exact encoding and decodes back to equal events; pretty lines
 * are aligned, use short addresses, and carry ANSI escapes only when colour is asked for.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Schema } from "effect"
import { Output } from "../src/index.js"
import { WatchEvent } from "@chainquery/watch"
import { alice, aptosAlice, aptosTransfer, collection, nftTransfer, summary, trade } from "../../../packages/watch/test/fixtures.js"

const ansi = new RegExp(`${String.fromCharCode(27)}\\[`)

const at = { chain: "0x89" as const, wallet: alice, blockNumber: 55_000_000n, timestamp: DateTime.makeUnsafe("2024-05-01T12:30:00Z") }
const pool = "0x" + "dd".repeat(20)
const native = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
const usdc = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
/** The wallet's purchase of a trade for 0.409 in 18 decimals, paid in `priceToken`. */
const nativeTrade = (chain: "0x1" | "0x89" | "0x38", priceToken: string | null) =>
  WatchEvent.fromTrade(chain, alice, trade({ price: "409000000000000000", price_token_address: priceToken }))[0]!
const prettyLine = (event: WatchEvent.WatchEvent) => Output.pretty(event, { color: false })
const jsonOf = (event: WatchEvent.WatchEvent) => JSON.parse(Output.lines([event], { format: "json", color: false }))
const nft = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice, token_id: "115792089237316195423570985008687907853269984665640564039457584007913129639935" }))
const events: ReadonlyArray<WatchEvent.WatchEvent> = [
  ...nft,
  ...WatchEvent.fromTrade("0x1", alice, trade()),
  ...WatchEvent.fromTrade("0x2105", alice, trade({ buyer_address: "0x" + "99".repeat(20), seller_address: alice, price_token_address: pool })),
  ...WatchEvent.defiChanges(at, [summary("aave-v3", [["supplied", pool, 1000], ["borrowed", pool, 10]])], [summary("aave-v3", [["supplied", pool, 1200.5], ["staked", pool, 3]])], 0.05),
  ...WatchEvent.fromAptosTransfer("testnet", aptosAlice, aptosTransfer({ from_address: aptosAlice, coin_amount: "100000000", coin_type: "0x1::aptos_coin::AptosCoin" })),
  WatchEvent.holdingUpdated("0x1", alice, collection, 7n, 0n, 19_000_001n),
  WatchEvent.holdingSyncing("0x1", alice, collection, 19_000_001n),
  WatchEvent.retract(nft[0] as WatchEvent.NftEvent)
]

describe("Output.json", () => {
  it("NDJSON: one line per event, bigints as strings, round-trips through the schema", () =>
    Effect.gen(function*() {
      const text = Output.lines(events, { format: "json", color: true })
      const lines = text.split("\n")
      assert.strictEqual(lines.pop(), "")
      assert.strictEqual(lines.length, events.length)
      assert.notMatch(text, ansi)
      for (const [index, line] of lines.entries()) {
        const raw = JSON.parse(line)
        assert.deepStrictEqual(raw, Schema.encodeSync(WatchEvent.WatchEvent)(events[index]!))
        const decoded = yield* Output.fromJson(line)
        assert.deepStrictEqual(decoded, events[index])
        assert.strictEqual(Output.json(decoded), line)
      }
      const first = JSON.parse(lines[0]!)
      assert.strictEqual(first.kind, "nft.sent")
      assert.strictEqual(first.tokenId, "115792089237316195423570985008687907853269984665640564039457584007913129639935")
      assert.strictEqual(first.blockNumber, "19000000")
      assert.strictEqual(first.amount, "1")
      assert.strictEqual(first.timestamp, "2024-05-01T12:00:07.000Z")
      assert.strictEqual(first.chain, "0x1")
      const bought = JSON.parse(lines[2]!)
      assert.deepStrictEqual(bought.tokenIds, ["1", "2"])
      assert.strictEqual(bought.price, "1500000000000000000")
      assert.isNull(bought.priceToken)
    }))

  it("the formatter ignores colour for JSON", () => {
    const write = Output.formatter({ format: "json", color: true })
    for (const event of events) assert.strictEqual(write(event), Output.json(event))
  })
})

/** A clock that is not the events' own: block N of chain C at N seconds plus C's id in days after 2030-01-01. */
const blockTime: Output.BlockTime = (chain, block) => DateTime.makeUnsafe(Date.UTC(2030, 0, 1 + Number(chain)) + Number(block % 86_400n) * 1000)
const timeColumn = (event: WatchEvent.WatchEvent, options: { readonly blockTime?: Output.BlockTime }) =>
  Output.pretty(event, { color: false, ...options }).slice(0, 19)

describe("Output.pretty", () => {
  it("no ANSI escapes when color is false; escapes when it is true", () => {
    for (const event of events) {
      assert.notMatch(Output.pretty(event, { color: false }), ansi)
      assert.match(Output.pretty(event, { color: true }), ansi)
    }
    assert.notMatch(Output.lines(events, { format: "pretty", color: false }), ansi)
  })

  it("one aligned line per event with short addresses", () => {
    const lines = events.map((event) => Output.pretty(event, { color: false }))
    for (const line of lines) assert.notInclude(line, "\n")
    const kindColumn = lines.map((line, index) => line.indexOf(events[index]!.kind))
    assert.strictEqual(new Set(kindColumn).size, 1, lines.join("\n"))
    const walletColumn = lines.map((line) => line.indexOf("0x5aae…eaed"))
    assert.strictEqual(new Set(walletColumn.filter((_, index) => !events[index]!.kind.startsWith("aptos"))).size, 1)
    const [sent] = lines
    assert.include(sent, "2024-05-01 12:00:07")
    assert.include(sent, "nft.sent")
    assert.include(sent, "eth")
    assert.include(sent, `${Output.short(collection)} #11579…9935`)
    assert.include(sent, "×1")
    assert.include(sent, "tx 0x1111…1111")
    assert.notInclude(sent, alice)
    assert.include(lines[1], "from 0x5aae…eaed")
    assert.include(lines[2], "trade.bought")
    assert.include(lines[2], "from 0xb0b0…b0b0")
    assert.include(lines[2], "1.5 ETH")
    assert.include(lines[3], "base")
    assert.include(lines[3], "to 0x9999…9999")
    assert.include(lines.find((line) => line.includes("defi.changed"))!, "$1,000.00→$1,200.50 +20.1%")
    assert.include(lines.find((line) => line.includes("aptos.token.in"))!, "aptos-testnet")
    assert.include(lines.at(-1)!, `retracts ${events.at(-1)!.kind === "retracted" ? (events.at(-1) as WatchEvent.Retracted).retracts : ""}`)
  })

  it("a price in the native currency reads in 18 decimals with the chain's symbol", () => {
    assert.include(prettyLine(nativeTrade("0x1", native)), "0.409 ETH")
    assert.include(prettyLine(nativeTrade("0x89", native)), "0.409 POL")
    assert.include(prettyLine(nativeTrade("0x1", null)), "0.409 ETH")
    assert.include(prettyLine(nativeTrade("0x89", null)), "0.409 POL")
    assert.include(prettyLine(nativeTrade("0x38", null)), "0.409 BNB")
    // The sentinel in any letter case, as an event decoded from elsewhere may carry it.
    assert.include(prettyLine({ ...nativeTrade("0x89", native), priceToken: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE" }), "0.409 POL")
    for (const event of [nativeTrade("0x1", native), nativeTrade("0x89", null)]) assert.notInclude(prettyLine(event), "409000000000000000")
  })

  it("a price in an ERC-20 reads as raw units and the short token address", () => {
    const [bought] = WatchEvent.fromTrade("0x1", alice, trade({ price: "409000000", price_token_address: usdc }))
    const line = Output.pretty(bought!, { color: false })
    assert.include(line, "409000000 0xa0b8…eb48")
    assert.notInclude(line, "ETH")
  })

  it("NDJSON keeps a trade's raw price and token", () => {
    const native18 = nativeTrade("0x89", native)
    const [erc20] = WatchEvent.fromTrade("0x1", alice, trade({ price: "409000000", price_token_address: usdc }))
    assert.strictEqual(jsonOf(native18).price, "409000000000000000")
    assert.strictEqual(jsonOf(native18).priceToken, native)
    assert.strictEqual(jsonOf(erc20!).price, "409000000")
    assert.strictEqual(jsonOf(erc20!).priceToken, usdc)
    assert.notInclude(Output.json(native18), "POL")
  })

  it("with a block clock, DeFi, holdings and retractions show their block's time; the others keep theirs", () => {
    const byBlock = new Set(["defi.opened", "defi.closed", "defi.changed", "holding.updated", "holding.syncing", "retracted"])
    for (const event of events) {
      const clocked = timeColumn(event, { blockTime })
      if (byBlock.has(event.kind)) {
        const { chain, blockNumber } = event as WatchEvent.Of<"holding.updated" | "defi.changed" | "retracted">
        const expected = DateTime.formatIso(blockTime(chain, blockNumber)!).replace("T", " ").slice(0, 19)
        assert.strictEqual(clocked, expected, event.kind)
      } else {
        assert.strictEqual(clocked, timeColumn(event, {}), event.kind)
      }
    }
    assert.strictEqual(timeColumn(events.at(-2)!, { blockTime: () => undefined }), " ".repeat(19), "an unknown block keeps the column empty")
    const lines = Output.lines(events, { format: "pretty", color: false, blockTime })
    assert.include(lines, DateTime.formatIso(blockTime("0x89", 55_000_000n)!).replace("T", " ").slice(0, 19))
  })

  it("the header names the columns where the lines have them", () => {
    const line = Output.pretty(events[0]!, { color: false })
    const names = ["time", "kind", "chain", "wallet", "token or position", "amount or value", "counterparty", "reference"]
    for (const name of names) assert.include(Output.header, name)
    assert.strictEqual(Output.header.indexOf("kind"), line.indexOf("nft.sent"))
    assert.strictEqual(Output.header.indexOf("wallet"), line.indexOf("0x5aae…eaed"))
    assert.strictEqual(Output.header.indexOf("reference"), line.indexOf("tx 0x1111…1111"))
  })

  it("short keeps short strings and shortens long ones", () => {
    assert.strictEqual(Output.short("0x1"), "0x1")
    assert.strictEqual(Output.short(alice), "0x5aae…eaed")
  })
})
