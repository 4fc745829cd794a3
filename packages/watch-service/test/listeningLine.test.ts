/**
 * `listening on http://HOST:PORT`, the first line on stdout that tools read to find the service, is
 * written once the routes answer: a call made the moment it is read is answered, not "starting",
 * even when the routes take a while to build (the console's read its files).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { serviceApi } from "./serviceHarness.js"

/** Routes that take 300 ms to build. */
const slowRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/slow", Effect.succeed(HttpServerResponse.text("built"))),
  Layer.effectDiscard(Effect.sleep(Duration.millis(300)))
)

/** Every call made at the moment a `listening on` line is written, to `path` there: their answers' statuses. */
const callsOnTheLine = (path: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const statuses: Array<Promise<number>> = []
      const write = process.stdout.write
      process.stdout.write = ((chunk: string | Uint8Array, ...rest: Array<any>) => {
        const line = /^listening on (http:\/\/\S+)\n/.exec(String(chunk))
        if (line !== null) statuses.push(fetch(`${line[1]}${path}`).then((response) => response.status))
        return write.call(process.stdout, chunk, ...rest)
      }) as typeof process.stdout.write
      return { statuses, write }
    }),
    ({ write }) => Effect.sync(() => void (process.stdout.write = write))
  )

describe("the listening line", () => {
  it.live("is written once the routes answer, however long they take to build", () =>
    Effect.scoped(Effect.gen(function*() {
      const { statuses } = yield* callsOnTheLine("/slow")
      yield* serviceApi({ routes: slowRoutes })
      assert.deepStrictEqual(yield* Effect.promise(() => Promise.all(statuses)), [200], "the call made on the line is answered")
    })))
})
