/**
 * The soak's verdict on hand-made outputs, so that a soak failure is the watcher's, not the
 * judge's: retractions, the replay `kill -9` allows (and what it does not), lost and extra ids.
 */
import { describe, expect, it } from "vitest"
import type { WatchEvent } from "@chainquery/watch"
import { judge } from "./verdict.js"

const event = (id: string): WatchEvent.WatchEvent => ({ kind: "nft.received", id }) as unknown as WatchEvent.WatchEvent
const retraction = (retracts: string): WatchEvent.WatchEvent =>
  ({ kind: "retracted", id: `r:${retracts}`, retracts }) as unknown as WatchEvent.WatchEvent
const all = (...items: ReadonlyArray<string>) => items.map(event)
const killed = { killed: true }
const ended = { killed: false }
const counts = (verdict: ReturnType<typeof judge>) => ({
  lost: verdict.lost.map((e) => e.id),
  extra: verdict.extra.map((p) => p.event.id),
  badRetractions: verdict.badRetractions.map((p) => p.event.id),
  repeated: verdict.repeated.map((p) => p.event.id),
  replayed: verdict.replayed
})

describe("the soak's verdict", () => {
  it("applies retractions in order: the new chain's events stand", () => {
    const verdict = judge([ended, ended], [all("a", "b"), [retraction("b"), event("c")]], all("a", "c"), [])
    expect(counts(verdict)).toEqual({ lost: [], extra: [], badRetractions: [], repeated: [], replayed: 0 })
    expect(verdict.clean).toBe(true)
  })

  it("counts lost, extra, repeated ids and retractions of ids that do not stand", () => {
    const verdict = judge([ended, ended], [all("a", "x"), [event("a"), retraction("zz")]], all("a", "b"), [])
    expect(counts(verdict)).toEqual({ lost: ["b"], extra: ["x"], badRetractions: ["r:zz"], repeated: ["a"], replayed: 0 })
    expect(verdict.clean).toBe(false)
  })

  it("allows the killed run's last batch again in the next run", () => {
    const verdict = judge([ended, killed, ended], [all("a"), all("b", "c", "d"), all("c", "d", "e")], all("a", "b", "c", "d", "e"), [])
    expect(counts(verdict)).toMatchObject({ repeated: [], replayed: 2 })
    expect(verdict.notes).toEqual([])
  })

  it("passes the batch on when the next run is killed while printing it again", () => {
    const verdict = judge([killed, killed, ended], [all("a", "b", "c"), all("b"), all("b", "c", "d")], all("a", "b", "c", "d"), [])
    expect(counts(verdict)).toMatchObject({ repeated: [], replayed: 3 })
  })

  it("passes the batch on past a run that printed none of it (its chain could not be read)", () => {
    const verdict = judge([killed, ended, ended], [all("a", "b"), all("c"), all("b")], all("a", "b", "c"), [])
    expect(counts(verdict)).toMatchObject({ repeated: [], replayed: 1 })
  })

  it("counts an id again that is not in the killed run's last lines, or that a run not killed printed", () => {
    const notSuffix = judge([killed, ended], [all("a", "b", "c"), all("a", "d")], all("a", "b", "c", "d"), [])
    expect(counts(notSuffix)).toMatchObject({ repeated: ["a"], replayed: 0 })
    const notKilled = judge([ended, ended], [all("a", "b"), all("b")], all("a", "b"), [])
    expect(counts(notKilled)).toMatchObject({ repeated: ["b"], replayed: 0 })
    const twice = judge([killed, ended, ended], [all("a", "b"), all("b"), all("b")], all("a", "b"), [])
    expect(counts(twice)).toMatchObject({ repeated: ["b"], replayed: 1 })
    const sameRun = judge([killed, ended], [all("a", "b"), all("b", "b")], all("a", "b"), [])
    expect(counts(sameRun)).toMatchObject({ repeated: ["b"], replayed: 1 })
  })

  it("notes a replay that is not printed first and in the same order, without failing", () => {
    const verdict = judge([killed, ended], [all("a", "b", "c"), all("x", "c", "b")], all("a", "b", "c", "x"), [])
    expect(counts(verdict)).toMatchObject({ repeated: [], replayed: 2 })
    expect(verdict.notes).toHaveLength(1)
    expect(verdict.clean).toBe(true)
  })
})
