/**
 * A state file written by the CLI before its engine moved into this package (`fixtures/README.md`
 * says how) is read as it is: its checkpoints and its batch left pending by a `kill -9`; then
 * `Watch.batches` on it produces that batch first, with the same ids, and goes on from the
 * checkpoints with exactly the ground truth.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Option, Schema, Stream } from "effect"
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { StateStore, Watch, WatchedWallet, type WatchEvent } from "../src/index.js"
import { aptosTruth, evmTruth, harness } from "./support/engineHarness.js"

const dir = mkdtempSync(join(tmpdir(), "chainquery-state-file-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url)
const facts = JSON.parse(readFileSync(fixture("state-0.1.0.json"), "utf8")) as {
  readonly wallets: ReadonlyArray<unknown>
  readonly checkpoints: ReadonlyArray<{ readonly wallet: unknown; readonly position: string }>
  readonly pending: ReadonlyArray<string>
  readonly lastBatch: { readonly value: { readonly sequence: number } }
}
const wallets = facts.wallets.map((wallet) => Schema.decodeUnknownSync(WatchedWallet.WatchedWallet)(wallet))
const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id)
const transfers = (events: ReadonlyArray<WatchEvent.WatchEvent>) =>
  events.filter((event) => ["nft.received", "nft.sent", "aptos.token.in", "aptos.token.out"].includes(event.kind))

describe("a state file of 0.1.0", () => {
  it.live("is read as it is, its pending batch comes first with the same ids, then the ground truth from its checkpoints", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      // The world the file was written against: the same seed, advanced as then.
      yield* sim.advance(6)
      yield* sim.advance(8)
      assert.strictEqual(sim.world.evm.chain("0x1").head, 18_000_073)
      const state = join(dir, "state.db")
      copyFileSync(fixture("state-0.1.0.db"), state)
      const opened = Effect.provide(StateStore.layer(state))

      /** What the file holds: each wallet's position, the pending events, the last batch's sequence. */
      const held = opened(Effect.gen(function*() {
        const store = yield* StateStore.StateStore
        return {
          checkpoints: new Map((yield* store.checkpoints).map((checkpoint) => [WatchedWallet.key(checkpoint.wallet), checkpoint.position])),
          pending: ids(yield* store.pendingEvents),
          sequence: Option.getOrThrow(yield* store.lastBatch).sequence
        }
      }))
      const before = yield* held
      assert.deepStrictEqual(
        before.checkpoints,
        new Map(facts.checkpoints.map((checkpoint) => [WatchedWallet.key(Schema.decodeUnknownSync(WatchedWallet.WatchedWallet)(checkpoint.wallet)), BigInt(checkpoint.position)]))
      )
      assert.deepStrictEqual(before.pending, facts.pending)
      assert.strictEqual(before.sequence, facts.lastBatch.value.sequence)
      assert.isAbove(before.pending.length, 40)

      yield* sim.advance(5)
      const produced = yield* opened(Stream.runCollect(
        Watch.batches({ wallets, watch: ["transfers", "trades", "defi", "holdings"], once: true }).pipe(
          Stream.mapEffect((batch) => Effect.as(batch.ack, batch))
        )
      ))
      assert.isTrue(produced[0]!.redelivered)
      assert.deepStrictEqual(ids(produced[0]!.events), facts.pending)
      assert.isTrue(produced.slice(1).every((batch) => !batch.redelivered))

      const after = yield* held
      assert.deepStrictEqual(after.pending, [])
      assert.isAbove(after.sequence, before.sequence)
      const truth: Array<WatchEvent.WatchEvent> = []
      for (const wallet of wallets) {
        const from = before.checkpoints.get(WatchedWallet.key(wallet))!
        const upTo = after.checkpoints.get(WatchedWallet.key(wallet))!
        assert.isTrue(upTo > from, `${WatchedWallet.key(wallet)} went on from its checkpoint`)
        truth.push(...(wallet.family === "evm" ? yield* evmTruth(sim, "0x1", [wallet], from, upTo) : aptosTruth(sim, [wallet], from, upTo)))
      }
      const cycle = transfers(produced.slice(1).flatMap((batch) => batch.events))
      assert.isAbove(truth.length, 5)
      assert.deepStrictEqual(ids(cycle).toSorted(), ids(truth).toSorted())
    }).pipe(Effect.provide(harness({ seed: 1212, indexing: false, chains: ["0x1"] }))), 120_000)
})
