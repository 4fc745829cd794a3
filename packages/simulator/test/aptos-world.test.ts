/**
 * The simulated Aptos network (family B world): determinism, each listing's filters and bounds,
 * offsets, consistent pagination while the world advances, invalid cursors, the invariant that
 * holdings are the fold of the transfers, O(page) query cost, and wire round trips through the
 * schemas of `@chainquery/schema`.
 */
import { type AptosToken, LedgerPage } from "@chainquery/schema"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Option, Schema } from "effect"
import { type AptosWorld as World, AptosWorld, type PageRequest } from "../src/internal/aptos/AptosWorld.js"
import { InvalidCursor } from "../src/internal/Cursor.js"

interface Page<A> {
  readonly cursor: Option.Option<string>
  readonly hasNextPage: boolean
  readonly result: ReadonlyArray<A>
}

/** Follows the cursors of a listing to its end, calling `between` after every page. */
const walk = <A>(
  fetch: (page: PageRequest) => Page<A>,
  limit: number,
  between: () => void = () => {},
  from?: string
): Array<A> => {
  const all: Array<A> = []
  let cursor: string | undefined = from
  for (let guard = 0; guard < 10_000; guard++) {
    const page = fetch(cursor === undefined ? { limit } : { limit, cursor })
    all.push(...page.result)
    assert.strictEqual(page.hasNextPage, Option.isSome(page.cursor))
    if (Option.isNone(page.cursor)) return all
    cursor = page.cursor.value
    between()
  }
  throw new Error("the listing never ended")
}

const transferKey = (t: AptosToken.TokenTransfer) =>
  `${t.transaction_version}:${t.event_account_address}:${t.event_creation_number}:${t.event_sequence_number}`

const holdingKey = (h: AptosToken.TokenHolding) => `${h.owner_address}:${h.token_data_id_hash}`

interface Balance {
  readonly owner: string
  readonly token: string
  readonly collection: string
  readonly amount: bigint
  readonly lastVersion: bigint
}

/** The holdings implied by the transfers at or before `version` (default: all). */
const fold = (world: World, version?: bigint): Map<string, Balance> => {
  const balances = new Map<string, Balance>()
  const add = (owner: string, t: AptosToken.TokenTransfer, delta: bigint) => {
    const key = `${owner}:${t.token_data_id_hash}`
    const amount = (balances.get(key)?.amount ?? 0n) + delta
    if (amount === 0n) balances.delete(key)
    else {
      balances.set(key, {
        owner,
        token: t.token_data_id_hash,
        collection: t.collection_data_id_hash,
        amount,
        lastVersion: t.transaction_version
      })
    }
  }
  for (const t of world.transfersSince(0n)) {
    if (version !== undefined && t.transaction_version > version) break
    if (Option.isSome(t.from_address)) add(t.from_address.value, t, -t.token_amount)
    if (Option.isSome(t.to_address)) add(t.to_address.value, t, t.token_amount)
  }
  for (const b of balances.values()) assert.isTrue(b.amount > 0n, "no negative balance")
  return balances
}

/** Compares holding records with the fold: same pairs, amounts and last versions, each once. */
const assertHoldings = (records: ReadonlyArray<AptosToken.TokenHolding>, truth: ReadonlyArray<Balance>, label: string) => {
  const keys = records.map(holdingKey)
  assert.strictEqual(new Set(keys).size, keys.length, `${label}: no duplicates`)
  assert.deepStrictEqual(
    records.map((h) => `${holdingKey(h)}=${h.amount}@${h.last_transaction_version}`).toSorted(),
    truth.map((b) => `${b.owner}:${b.token}=${b.amount}@${b.lastVersion}`).toSorted(),
    label
  )
}

/** A transfer from or to any of `wallets`. */
const involving = (wallets: ReadonlyArray<string>) => (t: AptosToken.TokenTransfer) =>
  wallets.some((w) => Option.contains(t.from_address, w) || Option.contains(t.to_address, w))

/** Mean milliseconds of seven queries of 100 records each, over 200 rounds. */
const timeQueries = (w: World): number => {
  const ws = w.sampleWallets(3), cols = w.sampleCollections(2), cs = w.sampleCreators(2), ts = w.sampleTokens(3)
  const start = performance.now()
  for (let i = 0; i < 200; i++) {
    w.transfersByWallets(ws, {}, { limit: 100 })
    w.transfersByCreators(cs, {}, { limit: 100 })
    w.nftsByOwners(ws, {}, { limit: 100 })
    w.ownersByCollection(cols[0]!, {}, { limit: 100 })
    w.ownersByTokens(ts, { limit: 100 })
    w.collections({ fromName: "B" }, { limit: 100 })
    w.coinsByNameRange({ fromName: "C", toName: "M" }, { limit: 100 })
  }
  return (performance.now() - start) / 200
}

/** Encodes a page with its schema, through JSON text, and decodes it back: it must be unchanged. */
const roundTrip = <A>(schema: Schema.Codec<A, unknown>, page: A) => {
  const encoded = Schema.encodeSync(schema)(page)
  const wire = JSON.parse(JSON.stringify(encoded)) as unknown
  assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(wire), page)
  return wire as { readonly result: ReadonlyArray<Record<string, unknown>>; readonly cursor: unknown }
}

const all = 100
const seed = "aptos-world-test/aptos/mainnet"

describe("AptosWorld", () => {
  const world = new AptosWorld({ seed, network: "mainnet", history: 60 })
  const wallets = world.sampleWallets(3)
  const creators = world.sampleCreators(2)
  const collections = world.sampleCollections(4)
  const tokens = world.sampleTokens(4)

  it("draws a plausible world: addresses, hashes, versions and deterministic timestamps", () => {
    const transfers = world.transfersSince(0n)
    assert.isTrue(transfers.length > 500)
    assert.isTrue(world.latestVersion() >= 1_000_000_000n)
    for (const t of transfers.slice(0, 200)) {
      assert.match(t.collection_data_id_hash, /^[0-9a-f]{64}$/)
      assert.match(t.token_data_id_hash, /^[0-9a-f]{64}$/)
      assert.match(t.creator_address, /^0x[0-9a-f]{64}$/)
      assert.strictEqual(DateTime.toEpochMillis(t.transaction_timestamp) < Date.UTC(2025, 0, 1), true)
    }
    const versions = transfers.map((t) => t.transaction_version)
    assert.isTrue(versions.every((v, i) => i === 0 || v >= versions[i - 1]!), "chain order")
    const kinds = new Set(transfers.map((t) => t.transfer_type))
    assert.deepStrictEqual([...kinds].toSorted(), [
      "0x3::token::BurnTokenEvent",
      "0x3::token::DepositEvent",
      "0x3::token::MintTokenEvent",
      "0x3::token_transfers::TokenClaimEvent"
    ])
    assert.isTrue(transfers.some((t) => Option.isSome(t.coin_amount) && Option.isSome(t.coin_type)), "some sales")
    assert.isTrue(transfers.filter((t) => t.transfer_type.endsWith("MintTokenEvent")).every((t) => Option.isNone(t.from_address)))
    assert.isTrue(transfers.filter((t) => t.transfer_type.endsWith("BurnTokenEvent")).every((t) => Option.isNone(t.to_address)))
    // Event handles: sequence numbers of one handle count up from 0 without gaps.
    const handles = new Map<string, Array<bigint>>()
    for (const t of transfers) {
      const key = `${t.event_account_address}:${t.event_creation_number}`
      handles.set(key, [...(handles.get(key) ?? []), t.event_sequence_number])
    }
    for (const sequence of handles.values()) assert.deepStrictEqual(sequence, sequence.map((_, i) => BigInt(i)))
    const coins = walk((p) => world.coinsByNameRange({}, p), all)
    assert.isTrue(coins.length >= 190)
    assert.isTrue(new Set(coins.map((c) => c.name.charAt(0))).size >= 30, "names across A..Z, lower case and digits")
    assert.isTrue(coins.filter((c) => Option.isNone(c.supply_aggregator_table_handle)).length > coins.length / 2)
    const holding = world.holdingsOf(wallets[0]!)[0]!
    assert.isTrue(typeof JSON.parse(holding.token_properties) === "object")
  })

  it("is deterministic: same seed and ticks give the same world; another seed or network does not", () => {
    const a = new AptosWorld({ seed, network: "mainnet", history: 10 })
    const b = new AptosWorld({ seed, network: "mainnet", history: 5 })
    for (let i = 0; i < 5; i++) b.advance()
    assert.strictEqual(a.latestVersion(), b.latestVersion())
    assert.deepStrictEqual(a.transfersSince(0n), b.transfersSince(0n))
    const w = a.sampleWallets(2)
    assert.deepStrictEqual(b.sampleWallets(2), w)
    assert.deepStrictEqual(a.nftsByOwners(w, {}, { limit: 50 }), b.nftsByOwners(w, {}, { limit: 50 }))
    assert.deepStrictEqual(a.collections({}, { limit: 20 }), b.collections({}, { limit: 20 }))
    assert.deepStrictEqual(a.coinsByNameRange({}, { limit: 20 }), b.coinsByNameRange({}, { limit: 20 }))
    const other = new AptosWorld({ seed: "another", network: "mainnet", history: 10 })
    assert.notDeepEqual(other.sampleWallets(2), w)
    const testnet = new AptosWorld({ seed: "aptos-world-test/aptos/testnet", network: "testnet", history: 10 })
    assert.isTrue(testnet.latestVersion() >= 3_000_000_000n)
    assert.notDeepEqual(testnet.sampleCollections(1), a.sampleCollections(1))
  })

  it("B1 owners by collection: the collection's holdings, wallet whitelist and blacklist", () => {
    const id = collections[0]!
    const truth = [...fold(world).values()].filter((b) => b.collection === id)
    const owners = walk((p) => world.ownersByCollection(id, {}, p), 7)
    assertHoldings(owners, truth, "B1")
    const [first, second] = [...new Set(truth.map((b) => b.owner))]
    const white = walk((p) => world.ownersByCollection(id, { walletWhitelist: [first!, second!] }, p), all)
    assertHoldings(white, truth.filter((b) => b.owner === first || b.owner === second), "B1 whitelist")
    const black = walk((p) => world.ownersByCollection(id, { walletBlacklist: [first!] }, p), all)
    assertHoldings(black, truth.filter((b) => b.owner !== first), "B1 blacklist")
    assert.deepStrictEqual(world.ownersByCollection("00".repeat(32), {}, { limit: 10 }).result, [])
    assert.deepStrictEqual(world.ownersByCollection(id, { walletWhitelist: [`0x${"0".repeat(64)}`] }, { limit: 10 }).result, [])
  })

  it("B2 transfers by creators: newest first, collection whitelist and blacklist", () => {
    const truth = world.transfersSince(0n).filter((t) => creators.includes(t.creator_address)).toReversed()
    const got = walk((p) => world.transfersByCreators(creators, {}, p), 33)
    assert.deepStrictEqual(got.map(transferKey), truth.map(transferKey))
    const versions = got.map((t) => t.transaction_version)
    assert.isTrue(versions.every((v, i) => i === 0 || v <= versions[i - 1]!), "newest first")
    const mine = [...new Set(truth.map((t) => t.collection_data_id_hash))]
    const foreign = world.transfersSince(0n).find((t) => !creators.includes(t.creator_address))!.collection_data_id_hash
    const white = walk((p) => world.transfersByCreators(creators, { collectionWhitelist: [mine[0]!, foreign] }, p), all)
    assert.deepStrictEqual(white.map(transferKey), truth.filter((t) => t.collection_data_id_hash === mine[0]).map(transferKey))
    const black = walk((p) => world.transfersByCreators(creators, { collectionBlacklist: [mine[0]!] }, p), all)
    assert.deepStrictEqual(black.map(transferKey), truth.filter((t) => t.collection_data_id_hash !== mine[0]).map(transferKey))
  })

  it("B3 transfers by wallets: from or to any wallet, once each, with collection filters", () => {
    const truth = world.transfersSince(0n).filter(involving(wallets)).toReversed()
    const got = walk((p) => world.transfersByWallets(wallets, {}, p), 9)
    assert.deepStrictEqual(got.map(transferKey), truth.map(transferKey))
    const target = truth[0]!.collection_data_id_hash
    const white = walk((p) => world.transfersByWallets(wallets, { collectionWhitelist: [target] }, p), all)
    assert.deepStrictEqual(white.map(transferKey), truth.filter((t) => t.collection_data_id_hash === target).map(transferKey))
    const black = walk((p) => world.transfersByWallets(wallets, { collectionBlacklist: [target] }, p), all)
    assert.deepStrictEqual(black.map(transferKey), truth.filter((t) => t.collection_data_id_hash !== target).map(transferKey))
  })

  it("B4 collections: name order, inclusive and case-sensitive bounds", () => {
    const everything = walk((p) => world.collections({}, p), 8)
    const names = everything.map((c) => c.collection_name)
    assert.strictEqual(names.length, 50)
    assert.deepStrictEqual(names, names.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    const pick = names[17]!
    assert.deepStrictEqual(walk((p) => world.collections({ fromName: pick, toName: pick }, p), all).map((c) => c.collection_name), [pick])
    const from = walk((p) => world.collections({ fromName: names[10]!, toName: names[20]! }, p), 3)
    assert.deepStrictEqual(from.map((c) => c.collection_name), names.slice(10, 21))
    const lower = walk((p) => world.collections({ fromName: "a" }, p), all).map((c) => c.collection_name)
    assert.deepStrictEqual(lower, names.filter((n) => n >= "a"))
    assert.isTrue(lower.length > 0 && lower.every((n) => n.charAt(0) === n.charAt(0).toLowerCase()))
    const upper = walk((p) => world.collections({ toName: "Z" }, p), all).map((c) => c.collection_name)
    assert.deepStrictEqual(upper, names.filter((n) => n <= "Z"))
    assert.deepStrictEqual(world.collections({ fromName: "b", toName: "a" }, { limit: 10 }).result, [])
    const one = everything.find((c) => c.collection_data_id_hash === collections[0])!
    const minted = new Set(world.transfersSince(0n).filter((t) => t.collection_data_id_hash === one.collection_data_id_hash).map((t) => t.token_data_id_hash))
    assert.strictEqual(one.supply, BigInt(minted.size))
  })

  it("B5 NFTs by owners: the owners' holdings with collection filters", () => {
    const truth = [...fold(world).values()].filter((b) => wallets.includes(b.owner))
    assertHoldings(walk((p) => world.nftsByOwners([...wallets, wallets[0]!], {}, p), 6), truth, "B5")
    const target = truth[0]!.collection
    const white = walk((p) => world.nftsByOwners(wallets, { collectionWhitelist: [target] }, p), all)
    assertHoldings(white, truth.filter((b) => b.collection === target), "B5 whitelist")
    const black = walk((p) => world.nftsByOwners(wallets, { collectionBlacklist: [target] }, p), all)
    assertHoldings(black, truth.filter((b) => b.collection !== target), "B5 blacklist")
    assert.deepStrictEqual(world.nftsByOwners([`0x${"0".repeat(64)}`], {}, { limit: 5 }).result, [])
  })

  it("B6 owners by tokens: every owner of each token", () => {
    const truth = [...fold(world).values()].filter((b) => tokens.includes(b.token))
    assert.isTrue(truth.length > tokens.length, "some tokens are editions with several owners")
    assertHoldings(walk((p) => world.ownersByTokens(tokens, p), 2), truth, "B6")
  })

  it("B7 coins by name range: all in A-Z order without bounds, inclusive and case-sensitive bounds", () => {
    const names = walk((p) => world.coinsByNameRange({}, p), all).map((c) => c.name)
    assert.deepStrictEqual(names, names.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    const range = walk((p) => world.coinsByNameRange({ fromName: "B", toName: "D" }, p), 5).map((c) => c.name)
    assert.deepStrictEqual(range, names.filter((n) => n >= "B" && n <= "D"))
    assert.isTrue(range.length > 0 && range.every((n) => n.startsWith("B") || n.startsWith("C") || n === "D"))
    assert.deepStrictEqual(walk((p) => world.coinsByNameRange({ fromName: "Aptos Coin", toName: "Aptos Coin" }, p), all).map((c) => c.symbol), ["APT"])
    assert.deepStrictEqual(walk((p) => world.coinsByNameRange({ fromName: "a" }, p), all).map((c) => c.name), names.filter((n) => n >= "a"))
    assert.deepStrictEqual(walk((p) => world.coinsByNameRange({ toName: "9" }, p), all).map((c) => c.name), names.filter((n) => n <= "9"))
    assert.deepStrictEqual(world.coinsByNameRange({ fromName: "aptos coin", toName: "aptos coin" }, { limit: 5 }).result, [])
  })

  it("offset skips that many results from the position", () => {
    const truth = walk((p) => world.transfersByWallets(wallets, {}, p), all)
    const page = world.transfersByWallets(wallets, {}, { limit: 5, offset: 7 })
    assert.deepStrictEqual(page.result.map(transferKey), truth.slice(7, 12).map(transferKey))
    const next = world.transfersByWallets(wallets, {}, { limit: 5, offset: 3, cursor: Option.getOrThrow(page.cursor) })
    assert.deepStrictEqual(next.result.map(transferKey), truth.slice(15, 20).map(transferKey))
    const coins = walk((p) => world.coinsByNameRange({}, p), all)
    assert.deepStrictEqual(world.coinsByNameRange({}, { limit: 3, offset: 10 }).result, coins.slice(10, 13))
    const past = world.coinsByNameRange({}, { limit: 3, offset: coins.length })
    assert.deepStrictEqual([past.result.length, past.hasNextPage], [0, false])
  })

  it("a full walk while the world advances returns each record of the snapshot exactly once", () => {
    const live = new AptosWorld({ seed: "walk", network: "mainnet", history: 30 })
    const ws = live.sampleWallets(4), cs = live.sampleCreators(3), cols = live.sampleCollections(2), ts = live.sampleTokens(6)
    const snapshot = live.latestVersion()
    const before = live.transfersSince(0n).filter((t) => t.transaction_version <= snapshot)
    const balances = [...fold(live, snapshot).values()]
    const tick = () => {
      for (let i = 0; i < 3; i++) live.advance()
    }
    const b3 = walk((p) => live.transfersByWallets(ws, {}, p), 4, tick)
    assert.deepStrictEqual(b3.map(transferKey), before.filter(involving(ws)).toReversed().map(transferKey))
    assert.isTrue(live.latestVersion() > snapshot, "the world moved on")
    const b2Start = live.latestVersion()
    const b2 = walk((p) => live.transfersByCreators(cs, {}, p), 10, tick)
    assert.deepStrictEqual(
      b2.map(transferKey),
      live.transfersSince(0n).filter((t) => t.transaction_version <= b2Start && cs.includes(t.creator_address)).toReversed().map(transferKey)
    )
    const started = live.latestVersion()
    const b5 = walk((p) => live.nftsByOwners(ws, {}, p), 3, tick)
    assertHoldings(b5, [...fold(live, started).values()].filter((b) => ws.includes(b.owner)), "B5 walk")
    const b1Start = live.latestVersion()
    const b1 = walk((p) => live.ownersByCollection(cols[0]!, {}, p), 5, tick)
    assertHoldings(b1, [...fold(live, b1Start).values()].filter((b) => b.collection === cols[0]), "B1 walk")
    const b6Start = live.latestVersion()
    const b6 = walk((p) => live.ownersByTokens(ts, p), 1, tick)
    assertHoldings(b6, [...fold(live, b6Start).values()].filter((b) => ts.includes(b.token)), "B6 walk")
    const b4Start = live.latestVersion()
    const b4 = walk((p) => live.collections({}, p), 4, tick)
    assert.strictEqual(new Set(b4.map((c) => c.collection_data_id_hash)).size, 50)
    const seenBy = live.transfersSince(0n).filter((t) => t.transaction_version <= b4Start)
    for (const c of b4) {
      const mine = seenBy.filter((t) => t.collection_data_id_hash === c.collection_data_id_hash)
      assert.strictEqual(c.supply, BigInt(mine.filter((t) => t.transfer_type.endsWith("MintTokenEvent")).length), "B4 supply at its snapshot")
      if (mine.length > 0) assert.strictEqual(c.last_transaction_version, mine.at(-1)!.transaction_version)
    }
    assert.isTrue(live.collections({}, { limit: 50 }).result.some((c, i) => c.supply !== b4[i]!.supply), "a fresh listing sees the new mints")
    assert.isTrue(balances.length > 0)
  })

  it("rejects a garbage cursor, another listing's cursor and another network's cursor", () => {
    const page = world.transfersByWallets(wallets, {}, { limit: 2 })
    const cursor = Option.getOrThrow(page.cursor)
    assert.throws(() => world.transfersByWallets(wallets, {}, { limit: 2, cursor: "garbage" }), InvalidCursor)
    assert.throws(() => world.transfersByCreators(wallets, {}, { limit: 2, cursor }), InvalidCursor)
    assert.throws(() => world.transfersByWallets(wallets.slice(1), {}, { limit: 2, cursor }), InvalidCursor)
    assert.throws(() => world.transfersByWallets(wallets, { collectionBlacklist: [collections[0]!] }, { limit: 2, cursor }), InvalidCursor)
    const testnet = new AptosWorld({ seed: "other", network: "testnet", history: 5 })
    assert.throws(() => testnet.transfersByWallets(wallets, {}, { limit: 2, cursor }), InvalidCursor)
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(cursor, "base64url").toString()), s: 9e15 })).toString("base64url")
    assert.throws(() => world.transfersByWallets(wallets, {}, { limit: 2, cursor: forged }), InvalidCursor)
    // The same wallets in another order or with repeats are the same listing.
    assert.doesNotThrow(() => world.transfersByWallets(wallets.toReversed(), {}, { limit: 2, cursor }))
  })

  it("holdings (B1, B5, B6 and holdingsOf) equal the fold of all transfers after 100 advances, and at past versions", () => {
    const live = new AptosWorld({ seed: "fold", network: "testnet", history: 20 })
    const openedAt: Array<{
      readonly version: bigint
      readonly owners: ReadonlyArray<string>
      readonly first: ReadonlyArray<AptosToken.TokenHolding>
      readonly cursor: string
    }> = []
    const everyone = () => [...new Set([...fold(live).values()].map((b) => b.owner))]
    for (let i = 0; i < 100; i++) {
      live.advance()
      if (i % 25 === 0) {
        const owners = everyone()
        const first = live.nftsByOwners(owners, {}, { limit: 10 })
        openedAt.push({ version: live.latestVersion(), owners, first: first.result, cursor: Option.getOrThrow(first.cursor) })
      }
    }
    const truth = [...fold(live).values()]
    const owners = [...new Set(truth.map((b) => b.owner))]
    assertHoldings(walk((p) => live.nftsByOwners(owners, {}, p), all), truth, "B5 everyone")
    assertHoldings(walk((p) => live.ownersByTokens([...new Set(truth.map((b) => b.token))], p), all), truth, "B6 every token")
    const byCollection = [...new Set(truth.map((b) => b.collection))].flatMap((c) => walk((p) => live.ownersByCollection(c, {}, p), all))
    assertHoldings(byCollection, truth, "B1 every collection")
    assertHoldings(owners.flatMap((o) => live.holdingsOf(o)), truth, "holdingsOf")
    for (const { version, owners: then, first, cursor } of openedAt) {
      const rest = walk((p) => live.nftsByOwners(then, {}, p), all, () => {}, cursor)
      assertHoldings([...first, ...rest], [...fold(live, version).values()], `B5 opened at ${version}, finished 100 ticks later`)
    }
  })

  it("costs O(page): a query on a world with 10x more transfers takes about as long", () => {
    const small = new AptosWorld({ seed: "cost", network: "mainnet", history: 200 })
    const big = new AptosWorld({ seed: "cost", network: "mainnet", history: 200 })
    while (big.ledger.rows.length < small.ledger.rows.length * 10) big.advance()
    timeQueries(small)
    const [a, b] = [timeQueries(small), timeQueries(big)]
    console.log(`aptos world, 7 queries of 100 records: ${a.toFixed(3)} ms with ${small.ledger.rows.length} transfers, ` +
      `${b.toFixed(3)} ms with ${big.ledger.rows.length} transfers (x${(b / a).toFixed(2)})`)
    assert.isTrue(big.ledger.rows.length >= 10 * small.ledger.rows.length)
  })

  it("every page encodes with the schema of its operation and decodes back", () => {
    const holdings = roundTrip(LedgerPage.HoldingsPage, world.nftsByOwners(wallets, {}, { limit: 20 }))
    assert.match(String(holdings.result[0]!["last_transaction_timestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
    assert.strictEqual(typeof holdings.result[0]!["token_properties"], "string")
    roundTrip(LedgerPage.HoldingsPage, world.ownersByCollection(collections[0]!, {}, { limit: 20 }))
    roundTrip(LedgerPage.HoldingsPage, world.ownersByTokens(tokens, { limit: 20 }))
    const transfers = roundTrip(LedgerPage.TransfersPage, world.transfersByWallets(wallets, {}, { limit: 100 }))
    assert.isTrue(transfers.result.some((t) => t["from_address"] === null), "mints carry a null from_address")
    roundTrip(LedgerPage.TransfersPage, world.transfersByCreators(creators, {}, { limit: 100 }))
    const cols = roundTrip(LedgerPage.CollectionsPage, world.collections({}, { limit: 50 }))
    assert.include(["true", "false"], cols.result[0]!["uri_mutable"])
    const coins = roundTrip(LedgerPage.CoinsPage, world.coinsByNameRange({}, { limit: 100 }))
    assert.strictEqual(typeof coins.result[0]!["decimals"], "number")
    const last = roundTrip(LedgerPage.CoinsPage, world.coinsByNameRange({ fromName: "zzzz" }, { limit: 100 }))
    assert.deepStrictEqual(last.cursor, null)
  })
})
