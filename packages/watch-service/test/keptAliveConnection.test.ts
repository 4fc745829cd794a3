/**
 * WebhookSender over a kept-alive connection the receiver closed as the next request arrived (its
 * idle timeout firing just then): the request never reached the receiver, so it is sent again, once,
 * on a new connection, and its answer is the outcome (not "unreachable", retried 10 s later and
 * counted as a failure). Only when the second request meets a closed reused connection too is the
 * outcome `Unreachable`. Real requests to a `node:http` receiver on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as WebhookSender from "../src/delivery/WebhookSender.js"
import { scriptedReceiver } from "./support/scriptedReceiver.js"

/** Lets the agent take back the connection of the answer just read (it does so after the response ends). */
const idle = Effect.promise(() => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))))

const post = (url: string) =>
  WebhookSender.post({ url: new URL(url), headers: { "webhook-id": "msg_1" }, body: "{\"sequence\":1}", timeout: "20 seconds", allowPrivate: true })

describe("WebhookSender.post on a kept-alive connection the receiver closed", () => {
  it.live("the request is sent again on a new connection: Delivered at the first attempt", () =>
    Effect.gen(function*() {
      const receiver = yield* scriptedReceiver({ closeReused: true })
      // The first request opens a connection the agent keeps; the second goes on it, and the receiver closes it.
      assert.deepStrictEqual(yield* post(receiver.url("/first")), WebhookSender.SendOutcome.Delivered({ status: 200 }))
      yield* idle
      assert.deepStrictEqual(yield* post(receiver.url("/second")), WebhookSender.SendOutcome.Delivered({ status: 200 }))
      assert.deepStrictEqual(receiver.closed, ["/second"])
      assert.deepStrictEqual(receiver.hits.map((hit) => [hit.path, hit.body]), [["/first", "{\"sequence\":1}"], ["/second", "{\"sequence\":1}"]])
      assert.strictEqual(receiver.sockets.length, 2)
    }))

  it.live("sent again once only: a second closed reused connection is Unreachable (the connection was reset)", () =>
    Effect.gen(function*() {
      const receiver = yield* scriptedReceiver({ closeReused: true })
      // Two requests at once leave two kept-alive connections; the next request and its resend each reuse one.
      const first = yield* Effect.all([post(receiver.url("/a")), post(receiver.url("/b"))], { concurrency: 2 })
      assert.deepStrictEqual(first, [WebhookSender.SendOutcome.Delivered({ status: 200 }), WebhookSender.SendOutcome.Delivered({ status: 200 })])
      assert.strictEqual(receiver.sockets.length, 2)
      yield* idle
      assert.deepStrictEqual(yield* post(receiver.url("/c")), WebhookSender.SendOutcome.Unreachable({ message: "the connection was reset" }))
      assert.deepStrictEqual(receiver.closed, ["/c", "/c"])
      assert.strictEqual(receiver.hits.length, 2)
    }))

  it.live("a connection closed without an answer on a new connection is not sent again: Unreachable (the connection was reset)", () =>
    Effect.gen(function*() {
      const receiver = yield* scriptedReceiver({ answer: () => "close" })
      assert.deepStrictEqual(yield* post(receiver.url("/closed")), WebhookSender.SendOutcome.Unreachable({ message: "the connection was reset" }))
      assert.strictEqual(receiver.hits.length, 1)
    }))

  it.live("a host that does not resolve is Unreachable: the host does not resolve", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* post("http://no-such-host.invalid/hook"), WebhookSender.SendOutcome.Unreachable({ message: "the host does not resolve" }))
    }))
})
