/**
 * A batch's place in the stream: another stream, a batch processed already, missing sequences,
 * missing blocks, blocks covered twice, reorganisations through `replaces` (valid and not),
 * replays, heartbeats, chains seen for the first time, and several chains in one batch. Every
 * expectation names the exact sequences and blocks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Missing, Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { aptos, batchRequest, type BatchFields, evm, now, secret, streamId } from "./support/signing.js"

/** Receives the signed batch `fields` against `state`. */
const receive = (state: ReceiverState.ReceiverState, fields: BatchFields) =>
  Receive.receive({ ...batchRequest(fields), secret, state, now })

/** The error of receiving `fields` against `state`, asserted to be of `tag`. */
const failure = <Tag extends ReceiveError.ReceiveError["_tag"]>(state: ReceiverState.ReceiverState, fields: BatchFields, tag: Tag) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(receive(state, fields))
    assert.strictEqual(error._tag, tag, error.message)
    return error as Extract<ReceiveError.ReceiveError, { readonly _tag: Tag }>
  })

/** A state bound to the test stream after `sequence`, covering `coverage`, lacking `missing` (if given). */
const after = (
  sequence: number,
  coverage: Record<string, readonly [number | string, number | string]> = {},
  missing?: Missing.Missing
): ReceiverState.ReceiverState => ({
  streamId,
  sequence,
  lastDeliveryId: `msg_${sequence}`,
  coverage: Object.fromEntries(Object.entries(coverage).map(([scope, [from, to]]) => [scope, { from: String(from), to: String(to) }])),
  ...(missing === undefined ? {} : { missing })
})

describe("the stream", () => {
  it.effect("the initial state binds to the first stream; a batch of another stream is a WrongStream naming both", () =>
    Effect.gen(function*() {
      const { state } = yield* receive(ReceiverState.initial, { sequence: 1 })
      assert.strictEqual(state.streamId, streamId)
      const error = yield* failure(state, { sequence: 2, streamId: "str_other" }, "WrongStream")
      assert.deepStrictEqual([error.expectedStreamId, error.streamId, error.deliveryId], [streamId, "str_other", "msg_2"])
      assert.include(error.message, streamId)
      assert.include(error.message, "str_other")
    }))

  it.effect("a retry of the last batch, an older one, or the last delivery id again is AlreadyProcessed", () =>
    Effect.gen(function*() {
      const state = after(3, { "0x1": [100, 130] })
      const retry = yield* failure(state, { sequence: 3, coverage: [evm("0x1", 121, 130)] }, "AlreadyProcessed")
      assert.deepStrictEqual([retry.deliveryId, retry.sequence, retry.lastSequence], ["msg_3", 3, 3])
      assert.include(retry.message, "msg_3")
      const older = yield* failure(state, { sequence: 1 }, "AlreadyProcessed")
      assert.deepStrictEqual([older.deliveryId, older.sequence, older.lastSequence], ["msg_1", 1, 3])
      const sameId = yield* failure(state, { sequence: 4, deliveryId: "msg_3" }, "AlreadyProcessed")
      assert.strictEqual(sameId.deliveryId, "msg_3")
    }))

  it.effect("the next batch moves the state: sequence, delivery id and covered-to", () =>
    Effect.gen(function*() {
      const { state } = yield* receive(after(3, { "0x1": [100, 125] }), { sequence: 4, coverage: [evm("0x1", 126, 130)] })
      assert.deepStrictEqual(state, after(4, { "0x1": [100, 130] }))
    }))

  it.effect("a sequence gap names the missing sequences, carries the batch and the state to accept it with", () =>
    Effect.gen(function*() {
      const gap = yield* failure(after(2, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 126, 130)] }, "Gap")
      assert.deepStrictEqual(gap.missingSequences, { from: 3, to: 4 })
      assert.deepStrictEqual(gap.missingBlocks, [])
      assert.include(gap.message, "sequences never received: 3..4")
      assert.strictEqual(gap.batch.deliveryId, "msg_5")
      // The state to accept it with remembers the hole.
      assert.deepStrictEqual(gap.state, after(5, { "0x1": [100, 130] }, { sequences: [{ from: 3, to: 4 }], blocks: [] }))
      // Accepting it: the next batch follows on from the gap's state, the hole kept.
      const { state } = yield* receive(gap.state, { sequence: 6, coverage: [evm("0x1", 131, 131)] })
      assert.deepStrictEqual(state, after(6, { "0x1": [100, 131] }, { sequences: [{ from: 3, to: 4 }], blocks: [] }))
    }))

  it.effect("a coverage gap with the sequence in order names the missing blocks and no missing sequence", () =>
    Effect.gen(function*() {
      const gap = yield* failure(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 131, 140)] }, "Gap")
      assert.isNull(gap.missingSequences)
      assert.deepStrictEqual(gap.missingBlocks, [{ scope: "0x1", from: "126", to: "130" }])
      assert.include(gap.message, "blocks never covered: 0x1 126..130")
      assert.deepStrictEqual(gap.state, after(5, { "0x1": [100, 140] }, { sequences: [], blocks: [{ scope: "0x1", from: "126", to: "130" }] }))
      // One block missing is a gap too.
      const one = yield* failure(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 127, 140)] }, "Gap")
      assert.deepStrictEqual(one.missingBlocks, [{ scope: "0x1", from: "126", to: "126" }])
      assert.include(one.message, "blocks never covered: 0x1 126")
    }))

  it.effect("a batch dropped among several is reported exactly on the next one: its sequence and its blocks of each chain", () =>
    Effect.gen(function*() {
      const batches: ReadonlyArray<BatchFields> = [1, 2, 3, 4, 5].map((sequence) => ({
        sequence,
        coverage: [evm("0x1", 100 + (sequence - 1) * 10, 109 + (sequence - 1) * 10), aptos("mainnet", 1000 * sequence + 1, 1000 * sequence + 1000)]
      }))
      let state = ReceiverState.initial
      for (const fields of batches.slice(0, 3)) state = (yield* receive(state, fields)).state
      assert.deepStrictEqual(state, after(3, { "0x1": [100, 129], "aptos:mainnet": [1001, 4000] }))
      // Batch 4 (0x1 130..139, aptos 4001..5000) never arrives.
      const gap = yield* failure(state, batches[4]!, "Gap")
      assert.deepStrictEqual(gap.missingSequences, { from: 4, to: 4 })
      assert.deepStrictEqual(gap.missingBlocks, [
        { scope: "0x1", from: "130", to: "139" },
        { scope: "aptos:mainnet", from: "4001", to: "5000" }
      ])
      assert.deepStrictEqual(gap.overlaps, [])
      assert.strictEqual(gap.message, "delivery msg_5 (sequence 5) leaves a gap: sequences never received: 4; blocks never covered: 0x1 130..139, aptos:mainnet 4001..5000")
      assert.deepStrictEqual(
        gap.state,
        after(5, { "0x1": [100, 149], "aptos:mainnet": [1001, 6000] }, { sequences: [{ from: 4, to: 4 }], blocks: gap.missingBlocks })
      )
    }))

  it.effect("a coverage range starting at or before the covered-to is an Overlap naming the chain and the blocks covered twice", () =>
    Effect.gen(function*() {
      const overlap = yield* failure(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 120, 130)] }, "Overlap")
      assert.deepStrictEqual(overlap.overlaps, [{ scope: "0x1", from: "120", to: "125" }])
      assert.include(overlap.message, "0x1 120..125")
      assert.strictEqual(overlap.batch.sequence, 5)
      assert.deepStrictEqual(overlap.state, after(5, { "0x1": [100, 130] }))
      // Starting at the covered-to is one block twice; a range entirely behind is all of it.
      const one = yield* failure(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 125, 130)] }, "Overlap")
      assert.deepStrictEqual(one.overlaps, [{ scope: "0x1", from: "125", to: "125" }])
      const behind = yield* failure(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0x1", 110, 112)] }, "Overlap")
      assert.deepStrictEqual(behind.overlaps, [{ scope: "0x1", from: "110", to: "112" }])
      assert.deepStrictEqual(behind.state.coverage, { "0x1": { from: "100", to: "125" } })
    }))

  it.effect("a valid reorganisation: replaces ends at the covered-to and the coverage starts again at its fromBlock", () =>
    Effect.gen(function*() {
      const state = after(4, { "0x1": [100, 125] })
      const { batch, state: next } = yield* receive(state, {
        sequence: 5,
        replaces: [evm("0x1", 118, 125)],
        coverage: [evm("0x1", 118, 130)],
        events: [{ id: "ev_r", kind: "nft.retracted" }, { id: "ev_5", kind: "nft.received" }]
      })
      assert.deepStrictEqual(batch.replaces, [evm("0x1", 118, 125)])
      assert.deepStrictEqual(next, after(5, { "0x1": [100, 130] }))
      // A reorganisation whose new blocks are not covered yet leaves the covered-to before it.
      const shortened = yield* receive(state, { sequence: 5, replaces: [evm("0x1", 118, 125)] })
      assert.deepStrictEqual(shortened.state.coverage, { "0x1": { from: "100", to: "117" } })
      const then = yield* receive(shortened.state, { sequence: 6, coverage: [evm("0x1", 118, 126)] })
      assert.deepStrictEqual(then.state.coverage, { "0x1": { from: "100", to: "126" } })
      // Even of everything covered: the chain is then empty (to = from - 1) until covered again.
      const all = yield* receive(state, { sequence: 5, replaces: [evm("0x1", 100, 125)] })
      assert.deepStrictEqual(all.state.coverage, { "0x1": { from: "100", to: "99" } })
      assert.deepStrictEqual((yield* receive(all.state, { sequence: 6, coverage: [evm("0x1", 100, 101)] })).state.coverage, {
        "0x1": { from: "100", to: "101" }
      })
    }))

  it.effect("a batch of the last sequence processed under another delivery id is AlreadyProcessed, never processed twice", () =>
    Effect.gen(function*() {
      const state = after(3, { "0x1": [100, 130] })
      const again = yield* failure(state, { sequence: 3, deliveryId: "msg_3b", coverage: [evm("0x1", 131, 140)] }, "AlreadyProcessed")
      assert.deepStrictEqual([again.deliveryId, again.sequence, again.lastSequence], ["msg_3b", 3, 3])
    }))

  it.effect("the whole range of a chain covered from block 0 restated: to is -1, stored and continued from, in a gap too", () =>
    Effect.gen(function*() {
      const state = after(4, { "0x1": [0, 25], "aptos:testnet": [0, 9] })
      const all = yield* receive(state, { sequence: 5, replaces: [evm("0x1", 0, 25)] })
      assert.deepStrictEqual(all.state.coverage, { "0x1": { from: "0", to: "-1" }, "aptos:testnet": { from: "0", to: "9" } })
      const stored = Schema.decodeUnknownSync(ReceiverState.Json)(Schema.encodeSync(ReceiverState.Json)(all.state))
      const next = yield* receive(stored, { sequence: 6, coverage: [evm("0x1", 0, 30)] })
      assert.deepStrictEqual(next.state.coverage["0x1"], { from: "0", to: "30" })
      // The same restatement after a lost batch is a Gap that carries that state.
      const gap = yield* failure(state, { sequence: 6, replaces: [aptos("testnet", 0, 9)] }, "Gap")
      assert.deepStrictEqual(gap.state.coverage["aptos:testnet"], { from: "0", to: "-1" })
      assert.deepStrictEqual(gap.missingSequences, { from: 5, to: 5 })
    }))

  it.effect("a bad replaces: ending before the covered-to, after it, of a chain never covered, or before the first covered block", () =>
    Effect.gen(function*() {
      const state = after(4, { "0x1": [100, 125] })
      const short = yield* failure(state, { sequence: 5, replaces: [evm("0x1", 118, 120)], coverage: [evm("0x1", 118, 130)] }, "Overlap")
      assert.deepStrictEqual(short.overlaps, [{ scope: "0x1", from: "121", to: "125" }])
      const long = yield* failure(state, { sequence: 5, replaces: [evm("0x1", 118, 127)], coverage: [evm("0x1", 118, 130)] }, "Gap")
      assert.isNull(long.missingSequences)
      assert.deepStrictEqual(long.missingBlocks, [{ scope: "0x1", from: "126", to: "127" }])
      assert.deepStrictEqual(long.state.coverage, { "0x1": { from: "100", to: "130" } })
      const unknown = yield* failure(state, { sequence: 5, replaces: [evm("0x89", 5, 9)], coverage: [evm("0x89", 5, 12)] }, "Overlap")
      assert.deepStrictEqual(unknown.overlaps, [{ scope: "0x89", from: "5", to: "9" }])
      const early = yield* failure(state, { sequence: 5, replaces: [evm("0x1", 90, 125)], coverage: [evm("0x1", 90, 130)] }, "Overlap")
      assert.deepStrictEqual(early.overlaps, [{ scope: "0x1", from: "90", to: "99" }])
    }))

  it.effect("a replay of events (no coverage) moves the sequence only; a batch sent again as it was is checked as any", () =>
    Effect.gen(function*() {
      const state = after(4, { "0x1": [100, 125] })
      const { batch, state: next } = yield* receive(state, { sequence: 5, replay: true, events: [{ id: "ev_old", kind: "nft.received" }] })
      assert.isTrue(batch.replay)
      assert.deepStrictEqual(next, after(5, { "0x1": [100, 125] }))
      // A batch the receiver never saw, sent again (replay, its own sequence and coverage): taken as the next.
      const again = yield* receive(state, { sequence: 5, replay: true, coverage: [evm("0x1", 126, 130)] })
      assert.deepStrictEqual(again.state, after(5, { "0x1": [100, 130] }))
      assert.isUndefined(again.healed)
      // And a replay after a missing batch is still a gap of sequences.
      const gap = yield* failure(state, { sequence: 7, replay: true }, "Gap")
      assert.deepStrictEqual(gap.missingSequences, { from: 5, to: 6 })
    }))

  it.effect("a heartbeat is a batch with no events; it may carry coverage", () =>
    Effect.gen(function*() {
      const state = after(4, { "0x1": [100, 125] })
      const quiet = yield* receive(state, { sequence: 5, heartbeat: true, events: [] })
      assert.isTrue(quiet.batch.heartbeat)
      assert.deepStrictEqual(quiet.batch.events, [])
      assert.deepStrictEqual(quiet.state, after(5, { "0x1": [100, 125] }))
      const moving = yield* receive(state, { sequence: 5, heartbeat: true, events: [], coverage: [evm("0x1", 126, 200)] })
      assert.deepStrictEqual(moving.state, after(5, { "0x1": [100, 200] }))
    }))

  it.effect("a chain seen for the first time starts at its fromBlock, beside the chains already covered", () =>
    Effect.gen(function*() {
      const { state } = yield* receive(after(4, { "0x1": [100, 125] }), { sequence: 5, coverage: [evm("0xa86a", 5000, 5010)] })
      assert.deepStrictEqual(state, after(5, { "0x1": [100, 125], "0xa86a": [5000, 5010] }))
      // The chain id is matched whatever its case.
      const next = yield* receive(state, { sequence: 6, coverage: [evm("0xA86A", 5011, 5012)] })
      assert.deepStrictEqual(next.state.coverage, { "0x1": { from: "100", to: "125" }, "0xa86a": { from: "5000", to: "5012" } })
    }))

  it.effect("two chains in one batch, an EVM chain and an Aptos network, each followed on its own", () =>
    Effect.gen(function*() {
      const state = after(1, { "0x1": [118, 125], "aptos:mainnet": [1001, 1500] })
      const { state: next } = yield* receive(state, { sequence: 2, coverage: [evm("0x1", 126, 130), aptos("mainnet", 1501, 1600)] })
      assert.deepStrictEqual(next, after(2, { "0x1": [118, 130], "aptos:mainnet": [1001, 1600] }))
      // One chain right, the other with a hole: the gap names only that one.
      const gap = yield* failure(state, { sequence: 2, coverage: [evm("0x1", 126, 130), aptos("mainnet", 1601, 1700)] }, "Gap")
      assert.deepStrictEqual(gap.missingBlocks, [{ scope: "aptos:mainnet", from: "1501", to: "1600" }])
    }))

  it.effect("a gap takes precedence over an overlap, and the one error names every chain concerned", () =>
    Effect.gen(function*() {
      const state = after(2, { "0x1": [100, 125], "0x89": [10, 20], "aptos:testnet": [5, 9] })
      const gap = yield* failure(state, {
        sequence: 4,
        coverage: [evm("0x1", 120, 130), evm("0x89", 25, 30), aptos("testnet", 12, 15)]
      }, "Gap")
      assert.deepStrictEqual(gap.missingSequences, { from: 3, to: 3 })
      assert.deepStrictEqual(gap.missingBlocks, [
        { scope: "0x89", from: "21", to: "24" },
        { scope: "aptos:testnet", from: "10", to: "11" }
      ])
      assert.deepStrictEqual(gap.overlaps, [{ scope: "0x1", from: "120", to: "125" }])
      assert.include(gap.message, "blocks covered twice: 0x1 120..125")
    }))

  it.effect("block numbers beyond 2^53 are exact", () =>
    Effect.gen(function*() {
      const state = after(1, { "0x1": ["9007199254740990", "9007199254740992"] })
      const gap = yield* failure(state, { sequence: 2, coverage: [evm("0x1", "9007199254740995", "9007199254740999")] }, "Gap")
      assert.deepStrictEqual(gap.missingBlocks, [{ scope: "0x1", from: "9007199254740993", to: "9007199254740994" }])
    }))
})

describe("holes healed by batches sent again", () => {
  /** Five batches of 0x1 and Aptos, ten blocks each; 2 and 4 lost, taken anyway from the gaps' states. */
  const batches: ReadonlyArray<BatchFields> = [1, 2, 3, 4, 5].map((sequence) => ({
    sequence,
    coverage: [evm("0x1", 100 + (sequence - 1) * 10, 109 + (sequence - 1) * 10), aptos("mainnet", 10 * sequence + 1, 10 * sequence + 10)]
  }))
  const withHoles = Effect.gen(function*() {
    let state = (yield* receive(ReceiverState.initial, batches[0]!)).state
    state = (yield* failure(state, batches[2]!, "Gap")).state
    return (yield* failure(state, batches[4]!, "Gap")).state
  })

  it.effect("the state keeps both holes; each batch sent again is accepted, reported healed, and the last leaves no hole", () =>
    Effect.gen(function*() {
      const state = yield* withHoles
      assert.deepStrictEqual(state.missing, {
        sequences: [{ from: 2, to: 2 }, { from: 4, to: 4 }],
        blocks: [
          { scope: "0x1", from: "110", to: "119" },
          { scope: "0x1", from: "130", to: "139" },
          { scope: "aptos:mainnet", from: "21", to: "30" },
          { scope: "aptos:mainnet", from: "41", to: "50" }
        ]
      })
      const second = yield* receive(state, { ...batches[1]!, replay: true })
      assert.deepStrictEqual(second.healed, {
        sequences: [{ from: 2, to: 2 }],
        blocks: [{ scope: "0x1", from: "110", to: "119" }, { scope: "aptos:mainnet", from: "21", to: "30" }]
      })
      // The sequence and the covered-to stay where they were.
      assert.deepStrictEqual([second.state.sequence, second.state.lastDeliveryId, second.state.coverage], [5, "msg_5", state.coverage])
      assert.deepStrictEqual(second.state.missing?.sequences, [{ from: 4, to: 4 }])
      const fourth = yield* receive(second.state, { ...batches[3]!, replay: true })
      assert.deepStrictEqual(fourth.healed?.sequences, [{ from: 4, to: 4 }])
      assert.deepStrictEqual(fourth.state, after(5, { "0x1": [100, 149], "aptos:mainnet": [11, 60] }))
      assert.notProperty(fourth.state, "missing")
    }))

  it.effect("a batch sent again that was never lost is AlreadyProcessed, the state unchanged", () =>
    Effect.gen(function*() {
      const state = yield* withHoles
      const third = yield* failure(state, { ...batches[2]!, replay: true }, "AlreadyProcessed")
      assert.deepStrictEqual([third.sequence, third.lastSequence], [3, 5])
      // Healed once, the same batch again is processed already too.
      const healed = (yield* receive(state, { ...batches[1]!, replay: true })).state
      yield* failure(healed, { ...batches[1]!, replay: true }, "AlreadyProcessed")
      // With no hole at all, nothing heals.
      yield* failure(after(5, { "0x1": [100, 149] }), { ...batches[1]!, replay: true }, "AlreadyProcessed")
    }))

  it.effect("a batch sent again by blocks fills the blocks it covers, even under another sequence", () =>
    Effect.gen(function*() {
      const state = after(5, { "0x1": [100, 149] }, { sequences: [], blocks: [{ scope: "0x1", from: "126", to: "130" }] })
      const part = yield* receive(state, { sequence: 3, replay: true, coverage: [evm("0x1", 120, 127)] })
      assert.deepStrictEqual(part.healed, { sequences: [], blocks: [{ scope: "0x1", from: "126", to: "127" }] })
      assert.deepStrictEqual(part.state.missing, { sequences: [], blocks: [{ scope: "0x1", from: "128", to: "130" }] })
    }))

  it.effect("a stored state of 0.4 (no missing key) decodes and has no hole; one with holes survives JSON", () =>
    Effect.gen(function*() {
      const old = Schema.decodeUnknownSync(ReceiverState.Json)(JSON.stringify(after(3, { "0x1": [1, 2] })))
      assert.notProperty(old, "missing")
      const state = yield* withHoles
      assert.deepStrictEqual(Schema.decodeUnknownSync(ReceiverState.Json)(Schema.encodeSync(ReceiverState.Json)(state)), state)
    }))
})

describe("wallets taken with their history", () => {
  const wallet = "0x00000000000000000000000000000000000000aa"
  const key = `0x1 ${wallet}`
  /** Batch `sequence`: a history batch of the wallet's blocks `from`..`to`. */
  const history = (sequence: number, from: number, to: number): BatchFields => ({
    sequence,
    phase: "history",
    history: [{ chain: "0x1", address: wallet, fromBlock: String(from), toBlock: String(to) }]
  })
  /** Batch 1: live, announcing the wallet: its history from 100, live from 200. */
  const announced: BatchFields = { sequence: 1, coverage: [evm("0x1", 200, 205)], wallets: [{ chain: "0x1", address: wallet, coveredFrom: "200", historyFrom: "100" }] }

  it.effect("announced with historyFrom, its ranges join up to coveredFrom - 1: complete; history batches interleave with live ones", () =>
    Effect.gen(function*() {
      let state = (yield* receive(ReceiverState.initial, announced)).state
      assert.deepStrictEqual(state.history, { [key]: { from: "100", to: "99", until: "200" } })
      assert.isFalse(ReceiverState.historyComplete(state.history![key]!))
      const first = yield* receive(state, history(2, 100, 149))
      assert.strictEqual(first.batch.phase, "history")
      state = first.state
      state = (yield* receive(state, { sequence: 3, coverage: [evm("0x1", 206, 210)] })).state
      state = (yield* receive(state, history(4, 150, 199))).state
      assert.deepStrictEqual(state.history, { [key]: { from: "100", to: "199", until: "200" } })
      assert.isTrue(ReceiverState.historyComplete(state.history![key]!))
      assert.deepStrictEqual(state.coverage, { "0x1": { from: "200", to: "210" } }, "history moves no live coverage")
      assert.notProperty(state, "missing")
    }))

  it.effect("a history batch lost in the middle: a Gap naming the history missing; sent again, healed, complete", () =>
    Effect.gen(function*() {
      let state = (yield* receive(ReceiverState.initial, announced)).state
      state = (yield* receive(state, history(2, 100, 129))).state
      const gap = yield* failure(state, history(4, 160, 199), "Gap")
      assert.deepStrictEqual(gap.missingSequences, { from: 3, to: 3 })
      assert.deepStrictEqual(gap.missingHistory, [{ wallet: key, from: "130", to: "159" }])
      assert.include(gap.message, `history never accounted for: ${key} 130..159`)
      assert.deepStrictEqual(gap.state.missing, { sequences: [{ from: 3, to: 3 }], blocks: [], history: [{ wallet: key, from: "130", to: "159" }] })
      const healed = yield* receive(gap.state, { ...history(3, 130, 159), replay: true })
      assert.deepStrictEqual(healed.healed, { sequences: [{ from: 3, to: 3 }], blocks: [], history: [{ wallet: key, from: "130", to: "159" }] })
      assert.notProperty(healed.state, "missing")
      assert.isTrue(ReceiverState.historyComplete(healed.state.history![key]!))
    }))

  it.effect("the last history batch lost: incomplete until it is sent again, then complete", () =>
    Effect.gen(function*() {
      let state = (yield* receive(ReceiverState.initial, announced)).state
      state = (yield* receive(state, history(2, 100, 149))).state
      state = (yield* failure(state, { sequence: 4, coverage: [evm("0x1", 206, 210)] }, "Gap")).state
      assert.isFalse(ReceiverState.historyComplete(state.history![key]!))
      const healed = yield* receive(state, { ...history(3, 150, 199), replay: true })
      assert.deepStrictEqual(healed.healed?.sequences, [{ from: 3, to: 3 }])
      assert.isTrue(ReceiverState.historyComplete(healed.state.history![key]!))
      assert.notProperty(healed.state, "missing")
    }))

  it.effect("a history range covering blocks of the wallet's history again is an Overlap naming the wallet", () =>
    Effect.gen(function*() {
      let state = (yield* receive(ReceiverState.initial, announced)).state
      state = (yield* receive(state, history(2, 100, 149))).state
      const overlap = yield* failure(state, history(3, 140, 160), "Overlap")
      assert.deepStrictEqual(overlap.overlaps, [{ scope: key, from: "140", to: "149" }])
    }))

  it.effect("taken again with another start: a new history; a range past the live start is an Overlap; a resent announcement moves nothing back", () =>
    Effect.gen(function*() {
      let state = (yield* receive(ReceiverState.initial, announced)).state
      state = (yield* receive(state, history(2, 100, 199))).state
      assert.isTrue(ReceiverState.historyComplete(state.history![key]!))
      // Removed, then added again from 150, live from 300.
      const again = { sequence: 3, wallets: [{ chain: "0x1", address: wallet, coveredFrom: "300", historyFrom: "150" }] }
      state = (yield* receive(state, again)).state
      assert.deepStrictEqual(state.history, { [key]: { from: "150", to: "149", until: "300" } })
      state = (yield* receive(state, history(4, 150, 249))).state
      const past = yield* failure(state, history(5, 250, 310), "Overlap")
      assert.deepStrictEqual(past.overlaps, [{ scope: key, from: "300", to: "310" }])
      // The first announcement sent again (a replay of a lost batch 1, say) changes nothing of it.
      const holed: ReceiverState.ReceiverState = { ...state, missing: { sequences: [{ from: 1, to: 1 }], blocks: [] } }
      const healed = yield* receive(holed, { ...announced, replay: true })
      assert.deepStrictEqual(healed.state.history, state.history)
    }))
})

describe("holes and reorganisations", () => {
  it.effect("a reorganisation's batch does not fill a hole in the range it states again (it carries only what changed there)", () =>
    Effect.gen(function*() {
      const state = after(5, { "0x1": [100, 149] }, { sequences: [], blocks: [{ scope: "0x1", from: "126", to: "130" }] })
      const { state: next } = yield* receive(state, { sequence: 6, replaces: [evm("0x1", 120, 149)], coverage: [evm("0x1", 120, 155)] })
      assert.deepStrictEqual(next.missing, { sequences: [], blocks: [{ scope: "0x1", from: "126", to: "130" }] })
      // Its coverage past the restated range fills as any does.
      const later = after(5, { "0x1": [100, 149] }, { sequences: [], blocks: [{ scope: "0x1", from: "152", to: "153" }] })
      assert.notProperty((yield* receive(later, { sequence: 6, replaces: [evm("0x1", 140, 149)], coverage: [evm("0x1", 140, 155)] })).state, "missing")
    }))
})
