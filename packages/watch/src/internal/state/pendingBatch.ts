/**
 * Writing again a batch committed write-ahead but maybe not written in full (the process died
 * between the commit and forgetting its pending events): what the engine and a backfill each do
 * before they commit anything of their own, which would replace those pending events.
 *
 * @internal
 */
import { Effect } from "effect"
import type { StateStore, StateStoreError } from "../../StateStore.js"
import type { WatchEvent } from "../../WatchEvent.js"
import { phaseOfPending } from "./stateCodecs.js"

/** Writes the pending events, if any (saying whether they are a history's), then forgets them; returns them. */
export const writePending = <E, R>(
  store: StateStore["Service"],
  write: (events: ReadonlyArray<WatchEvent>, phase: "live" | "history") => Effect.Effect<void, E, R>
): Effect.Effect<ReadonlyArray<WatchEvent>, StateStoreError | E, R> =>
  Effect.gen(function*() {
    const unwritten = yield* store.pendingEvents
    if (unwritten.length === 0) return unwritten
    yield* Effect.logWarning(`writing again the ${unwritten.length} event(s) of the last batch, committed before they were all written`)
    yield* write(unwritten, phaseOfPending(unwritten))
    yield* store.clearPending
    return unwritten
  })
