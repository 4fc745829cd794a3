/**
 * The README's "A rotated secret, a test event", run as written (see `support/readme.ts`), with
 * the secrets in the environment as the README reads them: a request signed with the new secret
 * only, with both, or with the old one are taken, one signed with neither is refused; a test event
 * comes out as `test`, at the start of a stream and in its middle; a retry as `already processed`.
 */
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { ReceiverState, Signature } from "../src/index.js"
import { readme, runReadmeBlock } from "./support/readme.js"
import { body, otherSecret, secret } from "./support/signing.js"

const saved = { current: process.env.WEBHOOK_SECRET, old: process.env.WEBHOOK_SECRET_OLD }
afterEach(() => {
  for (const [name, value] of [["WEBHOOK_SECRET", saved.current], ["WEBHOOK_SECRET_OLD", saved.old]] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

const fresh = "whsec_bmV3LXNlY3JldC1vZi10aGUtc3RyZWFt"

let run = 0

/** The README's `outcome` for a request of `text` signed with `signers`, from `state`, the new secret and `secret` (the old) in the environment. */
const outcomeOf = async (text: string, signers: Signature.Secrets, state: ReceiverState.ReceiverState = ReceiverState.initial) => {
  process.env.WEBHOOK_SECRET = fresh
  process.env.WEBHOOK_SECRET_OLD = secret
  const id = (JSON.parse(text) as { deliveryId: string }).deliveryId
  const timestamp = Math.floor(Date.now() / 1000)
  const headers = Signature.headers({ secret: signers, id, timestamp, body: text })
  if (headers._tag === "Failure") throw headers.failure
  readme.request = { headers: headers.success, body: Buffer.from(text) }
  readme.state = state
  const module = await runReadmeBlock("A rotated secret, a test event", `rotation${run++}`)
  const result = await Effect.runPromise(Effect.result(module.outcome as Effect.Effect<string, { _tag: string }>))
  // What came of it: the outcome, or the error's tag.
  return result._tag === "Success" ? result.success : `error ${result.failure._tag}`
}

describe("the README's rotated secret and test event, run as written", () => {
  it("takes a batch signed with the new secret, or both; refuses one signed with neither", async () => {
    const text = body({ coverage: [{ chain: "0x1", fromBlock: "1", toBlock: "2" }] })
    assert.strictEqual(await outcomeOf(text, fresh), "batch 1")
    assert.strictEqual(await outcomeOf(text, [fresh, secret]), "batch 1")
    assert.strictEqual(await outcomeOf(text, secret), "batch 1")
    assert.strictEqual(await outcomeOf(text, otherSecret), "error InvalidSignature")
  })

  it("a test event is `test`, a retry `already processed`", async () => {
    const test = body({ deliveryId: "msg_test", sequence: 0, test: true, events: [] })
    assert.strictEqual(await outcomeOf(test, [fresh, secret]), "test")
    const state: ReceiverState.ReceiverState = { streamId: (JSON.parse(test) as { streamId: string }).streamId, sequence: 3, lastDeliveryId: "msg_3", coverage: {} }
    assert.strictEqual(await outcomeOf(test, fresh, state), "test")
    assert.strictEqual(await outcomeOf(body({ sequence: 2 }), fresh, state), "already processed")
  })
})
