/**
 * The paginator on an in-memory listing: order, resume, the error's resume cursor, limits,
 * prefetch bound, interruption, and parallel reads equal to the sequential read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import { Envelope, Paginate, Parallel } from "../src/index.js"

interface APage {
  readonly result: ReadonlyArray<number>
  readonly cursor: Option.Option<string>
}

/** A listing of `total` numbers in pages of `size`; the cursor is the next offset as text. */
const listing = (total: number, size: number, options: { readonly failAt?: number; readonly latency?: number } = {}) => {
  const requests: Array<Option.Option<string>> = []
  const fetch = (cursor: Option.Option<string>) =>
    Effect.suspend(() => {
      requests.push(cursor)
      const offset = Number(Option.getOrElse(cursor, () => "0"))
      if (options.failAt !== undefined && offset === options.failAt) return Effect.fail(new Error(`boom at ${offset}`))
      const result = Array.from({ length: Math.max(0, Math.min(size, total - offset)) }, (_, i) => offset + i)
      const page: APage = { result, cursor: offset + size < total ? Option.some(String(offset + size)) : Option.none() }
      return options.latency === undefined ? Effect.succeed(page) : Effect.as(Effect.sleep(options.latency), page)
    })
  return { fetch, requests }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i)

describe("Paginate", () => {
  it.effect("walks every page in order, once", () =>
    Effect.gen(function*() {
      const { fetch, requests } = listing(25, 10)
      const all = yield* Stream.runCollect(Paginate.items(fetch, Envelope.evm<APage, number>()))
      assert.deepStrictEqual(all, range(25))
      assert.strictEqual(requests.length, 3)
    }))

  it.effect("empty and single-page listings", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Stream.runCollect(Paginate.items(listing(0, 10).fetch, Envelope.evm<APage, number>())), [])
      const single = yield* Stream.runCollect(Paginate.pages(listing(7, 10).fetch, Envelope.evm<APage, number>()))
      assert.strictEqual(single.length, 1)
      assert.isTrue(Option.isNone(single[0]!.next))
    }))

  it.effect("each page carries the cursor that continues after it; a stream resumes from one", () =>
    Effect.gen(function*() {
      const { fetch } = listing(50, 10)
      const firstTwo = yield* Stream.runCollect(Paginate.pages(fetch, Envelope.evm<APage, number>(), { maxPages: 2 }))
      const saved = Option.getOrThrow(firstTwo[1]!.next)
      const rest = yield* Stream.runCollect(Paginate.items(fetch, Envelope.evm<APage, number>(), { startCursor: saved }))
      assert.deepStrictEqual([...firstTwo.flatMap((p) => p.items), ...rest], range(50))
    }))

  it.effect("a failing page fails the stream with the cursor to resume from", () =>
    Effect.gen(function*() {
      const delivered: Array<number> = []
      const error = yield* Paginate.items(listing(50, 10, { failAt: 30 }).fetch, Envelope.evm<APage, number>()).pipe(
        Stream.runForEach((n) => Effect.sync(() => delivered.push(n))),
        Effect.flip
      )
      assert.strictEqual(error._tag, "PageFailed")
      assert.deepStrictEqual(error.resumeFrom, Option.some("30"))
      assert.strictEqual(error.pagesRead, 3)
      assert.match(error.message, /boom at 30/)
      const rest = yield* Stream.runCollect(
        Paginate.items(listing(50, 10).fetch, Envelope.evm<APage, number>(), { startCursor: Option.getOrThrow(error.resumeFrom) })
      )
      assert.deepStrictEqual([...delivered, ...rest], range(50))
    }))

  it.effect("maxItems stops early without reading further pages", () =>
    Effect.gen(function*() {
      const { fetch, requests } = listing(1000, 10)
      const first = yield* Stream.runCollect(Paginate.items(fetch, Envelope.evm<APage, number>(), { maxItems: 15 }))
      assert.deepStrictEqual(first, range(15))
      assert.strictEqual(requests.length, 2)
    }))

  it.effect("prefetch never runs more than `prefetch` pages ahead of the consumer", () =>
    Effect.gen(function*() {
      const { fetch, requests } = listing(200, 10)
      const gate = yield* Deferred.make<void>()
      const seenAt: Array<number> = []
      const fiber = yield* Paginate.pages(fetch, Envelope.evm<APage, number>(), { prefetch: 2 }).pipe(
        Stream.runForEach((page) =>
          Effect.gen(function*() {
            seenAt.push(requests.length)
            if (page.index === 0) yield* Deferred.await(gate)
          })
        ),
        Effect.forkChild
      )
      yield* Effect.yieldNow
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      // The consumer holds page 0: at most pages 1 and 2 were requested.
      assert.strictEqual(requests.length, 3)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      assert.strictEqual(requests.length, 20)
      seenAt.forEach((requested, index) => assert.isTrue(requested <= index + 3, `page ${index}: ${requested} requested`))
    }))

  it.effect("with prefetch, a defect in fetch fails the stream instead of hanging it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Stream.runDrain(Paginate.pages(() => Effect.die(new Error("decoder bug")), Envelope.evm<APage, number>(), { prefetch: 1 }))
      )
      assert.isTrue(Exit.isFailure(exit))
    }))

  it.effect("interrupting the stream interrupts the request in flight", () =>
    Effect.gen(function*() {
      for (const prefetch of [0, 1]) {
        let interrupted = false
        const started = yield* Deferred.make<void>()
        const fetch = () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
          )
        const fiber = yield* Effect.forkChild(Stream.runDrain(Paginate.pages(fetch, Envelope.evm<APage, number>(), { prefetch })))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        assert.isTrue(interrupted, `prefetch ${prefetch}`)
      }
    }))
})

/** A family B listing of 80 records in pages of 10, each page taking 20 ms. */
const slowOffsets = (offset: number) =>
  Effect.as(Effect.sleep("20 millis"), { result: offset < 80 ? range(10) : [], cursor: Option.none<string>(), hasNextPage: false })

describe("Parallel", () => {
  it.effect("byOffset returns what the sequential read returns, in order, stopping at the first short page", () =>
    Effect.gen(function*() {
      const requested: Array<number> = []
      const fetch = (offset: number) =>
        Effect.sync(() => {
          requested.push(offset)
          return { result: range(Math.max(0, Math.min(10, 95 - offset))).map((i) => offset + i), cursor: Option.none<string>(), hasNextPage: false }
        })
      const pages = yield* Stream.runCollect(Parallel.byOffset(fetch, Envelope.ledger(), { pageSize: 10, concurrency: 4 }))
      assert.deepStrictEqual(pages.flatMap((p) => p.items), range(95))
      assert.strictEqual(pages.length, 10)
    }))

  it.effect("byOffset overlaps requests (timed with TestClock)", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Stream.runCollect(Parallel.byOffset(slowOffsets, Envelope.ledger(), { pageSize: 10, concurrency: 8 })))
      yield* TestClock.adjust("40 millis")
      const pages = yield* Fiber.join(fiber)
      assert.strictEqual(pages.length, 9)
    }))

  it.effect("byOffset: a request running ahead that fails cannot overtake the last page", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Stream.runCollect(Parallel.byOffset(
        (offset: number) =>
          offset === 0
            ? Effect.as(Effect.sleep("100 millis"), { result: [1, 2], cursor: Option.none<string>(), hasNextPage: false })
            : Effect.fail(new Error(`offset ${offset} refused`)),
        Envelope.ledger(),
        { pageSize: 10, concurrency: 4 }
      )))
      yield* TestClock.adjust("100 millis")
      const pages = yield* Fiber.join(fiber)
      assert.deepStrictEqual(pages.flatMap((p) => p.items), [1, 2])
    }))

  it.effect("byOffset: a failing page reports how many pages were delivered", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Stream.runDrain(Parallel.byOffset(
        (offset: number) =>
          offset === 20 ? Effect.fail(new Error("boom")) : Effect.succeed({ result: range(10), cursor: Option.none<string>(), hasNextPage: true }),
        Envelope.ledger(),
        { pageSize: 10, concurrency: 3 }
      )))
      assert.strictEqual(error.pagesRead, 2)
    }))

  it("splitRange covers the range exactly, in the listing's order", () => {
    assert.deepStrictEqual(Parallel.splitRange(1n, 100n, 4, "ASC"), [[1n, 25n], [26n, 50n], [51n, 75n], [76n, 100n]])
    assert.deepStrictEqual(Parallel.splitRange(1n, 3n, 8, "DESC"), [[3n, 3n], [2n, 2n], [1n, 1n]])
    assert.deepStrictEqual(Parallel.splitRange(5n, 4n, 2, "ASC"), [])
  })

  it.effect("byBlockRange concatenates the sub-ranges in order: equal to the sequential read", () =>
    Effect.gen(function*() {
      // Records are blocks 1..200, newest first; each sub-range is walked by cursor, 7 per page.
      const fetchRange = (r: readonly [bigint, bigint]) => (cursor: Option.Option<string>) =>
        Effect.sync(() => {
          const all = range(Number(r[1] - r[0]) + 1).map((i) => Number(r[1]) - i)
          const offset = Number(Option.getOrElse(cursor, () => "0"))
          return { result: all.slice(offset, offset + 7), cursor: offset + 7 < all.length ? Option.some(String(offset + 7)) : Option.none<string>() }
        })
      const sequential = yield* Stream.runCollect(Paginate.items(fetchRange([1n, 200n]), Envelope.evm<APage, number>()))
      const parallel = yield* Stream.runCollect(
        Parallel.byBlockRange(fetchRange, Envelope.evm<APage, number>(), { fromBlock: 1n, toBlock: 200n, parts: 8, order: "DESC", bufferPages: 2 })
      )
      assert.deepStrictEqual(parallel.flatMap((p) => p.items), sequential)
      assert.deepStrictEqual(parallel.map((p) => p.index), range(parallel.length))
    }))
})
