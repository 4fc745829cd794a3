/**
 * `Signature.sign` and `Signature.headers`, the service's side of Standard Webhooks: for any secret,
 * id, time and body (UTF-8 of every plane), the signature is the reference library's
 * (`standardwebhooks`) byte for byte, the library verifies the headers, and so does `verify`.
 */
import { describe, expect, it } from "vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { Signature } from "../src/index.js"

describe("Signature.sign", () => {
  it("signs as the reference library does, and both verify it", () => {
    const now = Math.floor(Date.now() / 1000)
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.stringMatching(/^msg_[0-9A-Za-z]{1,30}$/),
        fc.integer({ min: -200, max: 200 }),
        fc.string({ unit: "binary", maxLength: 300 }),
        (key, id, offset, body) => {
          const secret = `whsec_${Buffer.from(key).toString("base64")}`
          const timestamp = now + offset
          const headers = Result.getOrThrow(Signature.headers({ secret, id, timestamp, body }))
          const reference = new Webhook(secret)
          expect(headers["webhook-signature"]).toBe(reference.sign(id, new Date(timestamp * 1000), body))
          expect(Result.getOrThrow(Signature.sign({ secret, id, timestamp, body }))).toBe(headers["webhook-signature"])
          expect(() => reference.verify(body, headers, { jsonParse: false })).not.toThrow()
          expect(Signature.verify(Result.getOrThrow(Signature.keyOf(secret)), { headers, body, now, toleranceSeconds: 300 })).toEqual(
            Result.succeed({ id, timestamp })
          )
        }
      ),
      { seed: 40, numRuns: 300 }
    )
  })

  it("refuses a secret that is not whsec_<base64>, without a word of it", () => {
    const signed = Signature.sign({ secret: "whsec_not base64!", id: "msg_1", timestamp: 1, body: "{}" })
    expect(Result.isFailure(signed) && signed.failure._tag).toBe("InvalidConfig")
    expect(JSON.stringify(signed)).not.toContain("not base64")
  })
})
