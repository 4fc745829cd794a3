/**
 * EventWriter: a write resolves only once the stream has taken the text, and a stream that fails
 * (a closed pipe) is an `OutputError`, never an uncaught exception.
 */
import { assert, describe, it } from "@effect/vitest"
import { Scrub } from "@chainquery/transport"
import { Effect, Fiber } from "effect"
import { Writable } from "node:stream"
import { EventWriter } from "../src/index.js"
import { WatchEvent } from "@chainquery/watch"
import { alice, nftTransfer } from "../../../packages/watch/test/fixtures.js"

describe("EventWriter", () => {
  it.live("resolves after the stream's write callback, with one line per event", () =>
    Effect.gen(function*() {
      const taken: Array<string> = []
      let release: (() => void) | undefined
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          taken.push(chunk.toString())
          release = callback
        }
      })
      const events = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice }))
      let done = false
      const fiber = yield* Effect.forkChild(Effect.tap(EventWriter.make(stream, "json")(events), () => Effect.sync(() => (done = true))))
      yield* Effect.sleep("20 millis")
      assert.isFalse(done, "resolved before the stream took the text")
      release?.()
      yield* Fiber.join(fiber)
      assert.isTrue(done)
      assert.strictEqual(taken.join("").split("\n").filter((line) => line !== "").length, events.length)
    }))

  it.effect("with a scrubber, a record that echoes the API key is written without it", () =>
    Effect.gen(function*() {
      const key = "watcher-key-0123456789abcdef"
      const taken: Array<string> = []
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          taken.push(chunk.toString())
          callback()
        }
      })
      const events = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice, transaction_hash: `0x${key}` }))
      yield* EventWriter.make(stream, "json", Scrub.make(key))(events)
      assert.include(taken.join(""), "0x<redacted>")
      assert.notInclude(taken.join(""), key.slice(0, 8))
    }))

  it.effect("a failing stream is an OutputError", () =>
    Effect.gen(function*() {
      const stream = new Writable({
        write(_chunk, _encoding, callback) {
          callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))
        }
      })
      const error = yield* Effect.flip(EventWriter.writeText(stream, "x\n"))
      assert.instanceOf(error, EventWriter.OutputError)
      assert.include(error.message, "EPIPE")
    }))
})
