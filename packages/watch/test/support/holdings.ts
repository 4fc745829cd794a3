/**
 * Test support for holdings: the properties every run with `watch: holdings` must have.
 */
import { assert } from "@effect/vitest"
import type { WatchEvent } from "../../src/index.js"

/** Some collection was reported SYNCING; each (wallet, collection) once, and later with its balances. */
export const assertSyncingThenUpdated = (all: ReadonlyArray<WatchEvent.WatchEvent>) => {
  const syncing = all.filter((event) => event.kind === "holding.syncing")
  assert.isAbove(syncing.length, 0)
  const pairs = syncing.map((event) => `${event.wallet}:${event.collection}`)
  assert.strictEqual(new Set(pairs).size, pairs.length, "SYNCING reported twice for one wallet and collection")
  const updated = all.filter((event) => event.kind === "holding.updated")
  for (const event of syncing) {
    const at = all.indexOf(event)
    assert.isTrue(
      updated.some((u) => u.wallet === event.wallet && u.collection === event.collection && all.indexOf(u) > at),
      `no holding.updated after ${event.id}`
    )
  }
}
