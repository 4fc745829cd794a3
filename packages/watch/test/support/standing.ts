/**
 * What a consumer of the watcher's output holds: the events left standing once every
 * `retracted` event has removed the one it names, in the order they were printed.
 */
import type { WatchEvent } from "../../src/index.js"

export const standing = (events: ReadonlyArray<WatchEvent.WatchEvent>): Array<WatchEvent.WatchEvent> => {
  const gone = new Set(events.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
  return events.filter((event) => event.kind !== "retracted" && !gone.has(event.id))
}
