/**
 * `POST /v1/streams/{id}/secret` over the real API, stores and delivery loop, against a receiver on
 * 127.0.0.1, checked with the reference Standard Webhooks library (`standardwebhooks`):
 *
 * - the answer carries the new secret (shown once); `GET` says a rotation is in grace and until
 *   when, never a secret;
 * - during the grace every request carries two signatures and the library verifies it with the
 *   old secret and with the new one; once the grace is over (the service says so), with the new
 *   one only: the old one fails;
 * - a rotation applies from the next attempt on, within one run of the delivery loop;
 * - `graceSeconds` 0 stops the old one at once; left out, 24 hours; a second rotation stops the
 *   first's old secret at once;
 * - a bad `graceSeconds` (beyond 7 days, negative, fractional) or an unknown field is a 400 naming
 *   it, and nothing changes: requests go on signed with the old secret alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import { type Api, serviceApi } from "./serviceHarness.js"
import { aliceStreamTo, withReceiver } from "./support/apiFixtures.js"
import type { Hit } from "./support/scriptedReceiver.js"
import { enqueue, transfers } from "./support/storeFixtures.js"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"


let logIndex = 0

/** One more event for alice, and the stream's delivery run: the request the receiver got. */
const deliverOne = async (api: Api, id: string, receiver: { readonly hits: ReadonlyArray<Hit> }): Promise<Hit> => {
  const before = receiver.hits.length
  await api.run(enqueue(transfers(1, { from: logIndex++ })))
  await api.run(Effect.gen(function*() {
    const config = yield* ServiceConfig
    yield* deliverDue(id).pipe(Effect.provideService(ServiceConfig, { ...config, retrySchedule: [Duration.hours(24)] }))
  }))
  assert.strictEqual(receiver.hits.length, before + 1, "one request delivered")
  return receiver.hits.at(-1)!
}

/** Whether the reference library verifies the request with `secret`. */
const verifies = (secret: string, hit: Hit): boolean => {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

const signatures = (hit: Hit): number => String(hit.headers["webhook-signature"]).split(" ").length

describe("secret rotation", () => {
  it.live("signed with both secrets for the grace, then with the new one only; GET says so and shows no secret", () =>
    withReceiver(async (api, receiver) => {
      const { id, secret: old } = await aliceStreamTo(api, receiver.url)
      const before = Date.now()
      const rotated = await api.call("POST", `/v1/streams/${id}/secret`, { body: { graceSeconds: 2 } })
      assert.strictEqual(rotated.status, 200, rotated.text)
      const fresh: string = rotated.body.secret
      assert.match(fresh, /^whsec_[A-Za-z0-9+/]{32}$/)
      assert.notStrictEqual(fresh, old)
      assert.isTrue(rotated.body.secretRotation.inGrace)
      const until = Date.parse(rotated.body.secretRotation.graceUntil)
      assert.isAtLeast(until, before + 2_000 - 1_000)
      assert.isAtMost(until, Date.now() + 2_000 + 1_000)
      const got = await api.call("GET", `/v1/streams/${id}`)
      assert.deepStrictEqual(got.body.secretRotation, rotated.body.secretRotation)
      for (const secret of [old, fresh]) assert.notInclude(got.text, secret.slice("whsec_".length))

      const during = await deliverOne(api, id, receiver)
      assert.strictEqual(signatures(during), 2)
      assert.isTrue(verifies(old, during), "the old secret verifies during the grace")
      assert.isTrue(verifies(fresh, during), "the new secret verifies from the rotation on")

      // Once the service says the grace is over, its requests are signed with the new secret only.
      while ((await api.call("GET", `/v1/streams/${id}`)).body.secretRotation.inGrace) await new Promise((resolve) => setTimeout(resolve, 200))
      const after = await deliverOne(api, id, receiver)
      assert.strictEqual(signatures(after), 1)
      assert.isTrue(verifies(fresh, after))
      assert.isFalse(verifies(old, after), "the old secret fails once the grace is over")
    }))

  it.live("graceSeconds 0 stops the old secret at once; left out, it is 24 hours; a second rotation stops the first's old secret", () =>
    withReceiver(async (api, receiver) => {
      const { id, secret: first } = await aliceStreamTo(api, receiver.url)
      const now = await api.call("POST", `/v1/streams/${id}/secret`, { body: { graceSeconds: 0 } })
      assert.strictEqual(now.status, 200, now.text)
      assert.deepInclude(now.body.secretRotation, { graceUntil: null, inGrace: false })
      const at = await deliverOne(api, id, receiver)
      assert.isTrue(verifies(now.body.secret, at))
      assert.isFalse(verifies(first, at))

      const second = await api.call("POST", `/v1/streams/${id}/secret`)
      assert.strictEqual(second.status, 200, second.text)
      const until = Date.parse(second.body.secretRotation.graceUntil) - Date.parse(second.body.secretRotation.rotatedAt)
      assert.strictEqual(until, 24 * 3_600_000)
      const third = await api.call("POST", `/v1/streams/${id}/secret`, { body: { graceSeconds: 600 } })
      const both = await deliverOne(api, id, receiver)
      assert.strictEqual(signatures(both), 2)
      assert.isTrue(verifies(third.body.secret, both))
      assert.isTrue(verifies(second.body.secret, both))
      assert.isFalse(verifies(now.body.secret, both), "the secret before the second rotation stopped at the third")
    }))

  it.live("a rotation applies from the next attempt on, within one run of the delivery loop", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* serviceApi()
      const hits: Array<Hit> = []
      let id = ""
      let rotated = ""
      // A receiver that has the secret rotated (no grace) as the first batch arrives, then takes it.
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          hits.push({ path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
          if (hits.length > 1) return void response.writeHead(200).end()
          void api.call("POST", `/v1/streams/${id}/secret`, { body: { graceSeconds: 0 } }).then((answered) => {
            rotated = answered.body.secret
            response.writeHead(200).end()
          })
        })
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      yield* Effect.promise(async () => {
        const stream = await aliceStreamTo(api, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)
        id = stream.id
        await api.run(enqueue(transfers(1, { from: logIndex++ })))
        await api.run(enqueue(transfers(1, { from: logIndex++ })))
        await api.run(deliverDue(id))
        assert.strictEqual(hits.length, 2, "both batches in one run")
        assert.isTrue(verifies(stream.secret, hits[0]!))
        assert.isTrue(verifies(rotated, hits[1]!), "the next attempt signed with the new secret")
        assert.isFalse(verifies(stream.secret, hits[1]!))
      })
    })))

  it.live("a bad graceSeconds or an unknown field is a 400 naming it, and nothing changes", () =>
    withReceiver(async (api, receiver) => {
      const { id, secret } = await aliceStreamTo(api, receiver.url)
      const bad: ReadonlyArray<readonly [unknown, string]> = [
        [{ graceSeconds: 7 * 24 * 3600 + 1 }, "graceSeconds"],
        [{ graceSeconds: -1 }, "graceSeconds"],
        [{ graceSeconds: 1.5 }, "graceSeconds"],
        [{ graceSeconds: "60" }, "graceSeconds"],
        [{ grace: 60 }, "grace"]
      ]
      for (const [body, field] of bad) {
        const refused = await api.call("POST", `/v1/streams/${id}/secret`, { body })
        assert.strictEqual(refused.status, 400, JSON.stringify(body))
        assert.strictEqual(refused.body.field, field, refused.text)
        assert.notInclude(refused.text, "whsec_")
      }
      assert.isNull((await api.call("GET", `/v1/streams/${id}`)).body.secretRotation)
      const hit = await deliverOne(api, id, receiver)
      assert.strictEqual(signatures(hit), 1)
      assert.isTrue(verifies(secret, hit))
      assert.strictEqual((await api.call("POST", "/v1/streams/str_000000000000000000000/secret")).status, 404)
    }))
})
