/**
 * SERVE.md's "Stream controls", run as written against the service's API (its real handlers and
 * stores on PostgreSQL, a receiver on 127.0.0.1 answering test events with a 500, as the examples
 * show): each ```http example's request is sent (its stream id and example URL replaced by the
 * test's), and the answer has the documented status, every field the example names, and the
 * example's `status`, `delivered` and `inGrace` values (where the example puts them); the ```json filter is taken as written and
 * answered back as stored.
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, it } from "vitest"
import { serviceApi } from "../../../../packages/watch-service/test/serviceHarness.js"
import { scriptedReceiver } from "../../../../packages/watch-service/test/support/scriptedReceiver.js"

const serveDoc = fileURLToPath(new URL("../../SERVE.md", import.meta.url))

/** The section's text: from its heading to the next `## `. */
const section = (text: string, heading: string): string => {
  const start = text.indexOf(`\n${heading}\n`)
  assert.isAtLeast(start, 0, `SERVE.md has no "${heading}"`)
  const end = text.indexOf("\n## ", start + heading.length + 2)
  return text.slice(start, end === -1 ? undefined : end)
}

/** The code blocks of a language, in order. */
const blocks = (text: string, language: string): Array<string> =>
  [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!)

/** An example exchange: the request line and JSON body, the answer's status and text. */
const exchangeOf = (block: string) => {
  const [request, response] = block.split(/\n(?=HTTP\/1\.1 )/) as [string, string]
  const [head, body] = request.split(/\n\n/)
  const [method, path] = head!.split("\n")[0]!.split(" ") as [string, string]
  return {
    method,
    path,
    body: body === undefined || body.trim() === "" ? undefined : JSON.parse(body) as unknown,
    status: Number(response.split(" ")[1]),
    answer: response.slice(response.indexOf("\n") + 1)
  }
}

/** Every key of a JSON value, at any depth. */
const keysOf = (value: unknown): Set<string> => {
  const keys = new Set<string>()
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk)
    else if (typeof node === "object" && node !== null) {
      for (const [key, child] of Object.entries(node)) {
        keys.add(key)
        walk(child)
      }
    }
  }
  walk(value)
  return keys
}

/** Every value of `key`, at any depth. */
const valuesOf = (node: unknown, key: string): Array<unknown> => {
  if (typeof node !== "object" || node === null) return []
  const here = !Array.isArray(node) && key in node ? [(node as Record<string, unknown>)[key]] : []
  return [...here, ...Object.values(node).flatMap((child) => valuesOf(child, key))]
}

it("SERVE.md's stream controls: every example's request answered as the example shows", async () => {
  const controls = section(readFileSync(serveDoc, "utf8"), "## Stream controls")
  const exchanges = blocks(controls, "http").map(exchangeOf)
  assert.deepStrictEqual(exchanges.map((exchange) => `${exchange.method} ${exchange.path.replace(/str_[^/]+/, "{id}")}`), [
    "POST /v1/streams/{id}/test",
    "POST /v1/streams",
    "POST /v1/streams/{id}/secret"
  ])
  await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const receiver = yield* scriptedReceiver({ answer: (hit) => (JSON.parse(hit.body) as { test: boolean }).test ? 500 : 200 })
    const api = yield* serviceApi()
    const url = receiver.url("/hook")
    yield* Effect.promise(async () => {
      const stream = await api.call("POST", "/v1/streams", { body: { url } })
      assert.strictEqual(stream.status, 201, stream.text)
      for (const exchange of exchanges) {
        const body = exchange.body === undefined ? undefined : JSON.parse(JSON.stringify(exchange.body).replaceAll("https://example.com/hook", url))
        const answer = await api.call(exchange.method, exchange.path.replace(/str_[^/]+/, stream.body.id), body === undefined ? {} : { body })
        assert.strictEqual(answer.status, exchange.status, `${exchange.method} ${exchange.path}: ${answer.text}`)
        const actual = keysOf(answer.body)
        for (const [, key] of exchange.answer.matchAll(/"([A-Za-z]+)":/g)) assert.isTrue(actual.has(key!), `${exchange.path}: the answer has no ${key}`)
        for (const [, key, literal] of exchange.answer.matchAll(/"(status|delivered|inGrace)":("[a-z]+"|true|false|[0-9]+)/g)) {
          assert.deepInclude(valuesOf(answer.body, key!), JSON.parse(literal!), `${exchange.path}: ${key}`)
        }
      }
      const [filtered] = blocks(controls, "json")
      const created = await api.call("POST", "/v1/streams", { body: JSON.parse(filtered!.replaceAll("https://example.com/hook", url)) })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(created.body.filters, JSON.parse(filtered!).filters)
    })
  })))
}, 60_000)
