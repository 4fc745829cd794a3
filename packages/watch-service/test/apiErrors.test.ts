/**
 * What a refused request says (SERVE.md, the management API): a 401 tells a missing token from a
 * wrong one; a 400 names the field (`body` for a body that is no object, the path's and the
 * query's fields by name, a list's item by its index) and counts the other problems.
 */
import { assert, describe, it } from "@effect/vitest"
import { rowsOf, withApi } from "./support/apiFixtures.js"

const receiver = "http://127.0.0.1:9/hook"

describe("refused requests", () => {
  it.live("401: a missing token and a wrong one are told apart", () =>
    withApi(async (api) => {
      for (const [token, message] of [[null, /^a bearer token is required: Authorization: Bearer <the service's --api-token> \(or a console session\)$/], ["nope", /^the bearer token is not the service's --api-token$/]] as const) {
        const answer = await api.call("GET", "/v1/streams", { token })
        assert.strictEqual(answer.status, 401)
        assert.match(answer.body.message, message, String(token))
      }
      const empty = await fetch(`${api.url}/v1/streams`, { headers: { authorization: "Bearer " } })
      assert.strictEqual(empty.status, 401, "an empty bearer token is no token")
    }))

  it.live("400: the field named, the other problems counted (one, or several), a body that is no object named body", () =>
    withApi(async (api) => {
      const cases: ReadonlyArray<readonly [unknown, string, RegExp]> = [
        [[], "body", /^Expected object/],
        ["url", "body", /^Expected object/],
        [{ url: 42, colour: "red" }, "colour", /^colour is not a field of this request \(and 1 more problem\)$/],
        [{ url: 42, events: "nft.sent", confirmations: "1" }, "url", /^Expected string \(and 2 more problems\)$/],
        [{ colour: "red", url: receiver }, "colour", /^colour is not a field of this request$/],
        [{ url: receiver, chains: ["eth", 7] }, "chains[1]", /^Expected string/]
      ]
      for (const [body, field, message] of cases) {
        const answer = await api.call("POST", "/v1/streams", { body })
        assert.strictEqual(answer.status, 400, JSON.stringify(body))
        assert.deepStrictEqual([answer.body.error, answer.body.field], ["bad_request", field], `${JSON.stringify(body)}: ${answer.text}`)
        assert.match(answer.body.message, message, JSON.stringify(body))
      }
      assert.strictEqual(await api.run(rowsOf("streams")), 0)
    }))
})
