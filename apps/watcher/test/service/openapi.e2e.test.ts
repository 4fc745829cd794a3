/**
 * The OpenAPI document as the running service serves it at `/openapi.json`: valid OpenAPI 3.1 (a
 * maintained validator), with its version the package's, a lower-case `bearer` scheme on every
 * route and none on the probes, `/metrics` and the docs (checked against the service's answers), a
 * summary and a description on every operation, a description on every property and parameter,
 * `limit` an integer, and the webhook batch under `webhooks`, whose schema decodes the body the
 * service writes.
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import { WatchEvent } from "@chainquery/watch"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { afterAll, assert, describe, it } from "vitest"
import { DeliveryWorker, WebhookBatch } from "@chainquery/watch-service"
import { withSimulator } from "../e2e/support/e2e.js"
import { freshDatabase, serveArgs, type Service, startService } from "./support/serveE2e.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { readonly version: string }

type Json = Record<string, any>

const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"])

/** Every operation of a paths (or webhooks) object: its method, path and object. */
const operationsOf = (paths: Json): Array<{ readonly method: string; readonly path: string; readonly operation: Json }> =>
  Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item as Json).filter(([method]) => methods.has(method)).map(([method, operation]) => ({ method, path, operation }))
  )

/** Where a property has no description: the JSON pointer of each, under `node`. */
const undescribed = (node: unknown, at: string): Array<string> => {
  if (Array.isArray(node)) return node.flatMap((child, index) => undescribed(child, `${at}/${index}`))
  if (node === null || typeof node !== "object") return []
  const object = node as Json
  const own = typeof object["properties"] === "object" && object["properties"] !== null
    ? Object.entries(object["properties"] as Json).filter(([, schema]) => typeof schema?.description !== "string" || schema.description === "")
      .map(([name]) => `${at}/properties/${name}`)
    : []
  return [...own, ...Object.entries(object).flatMap(([key, child]) => undescribed(child, `${at}/${key}`))]
}

/** An event as the watcher writes it (the README's example). */
const event = Schema.encodeSync(WatchEvent.WatchEvent)(Schema.decodeUnknownSync(WatchEvent.WatchEvent)({
  kind: "nft.received",
  id: "evm:0x1:0xeb3f:2:7:received",
  chain: "0x1",
  wallet: "0x5590" + "ab".repeat(18),
  collection: "0x04d9" + "cd".repeat(18),
  tokenId: "7",
  amount: "17",
  counterparty: "0x" + "00".repeat(20),
  transfer: "mint",
  transactionHash: "0xeb3f",
  logIndex: 2,
  blockNumber: "18000060",
  blockHash: "0x8f47",
  timestamp: "2024-01-01T00:12:00.000Z"
}))

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 and describes the API, its security and the webhook batch", async () => {
    await withSimulator({ seed: 1641, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service: Service = await startService(database.url, serveArgs(sim))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const response = await fetch(`${service.url}/openapi.json`)
      assert.strictEqual(response.status, 200)
      const document = await response.json() as Json

      const validator = new Validator()
      const result = await validator.validate(structuredClone(document))
      assert.isTrue(result.valid, JSON.stringify(result.errors))
      assert.strictEqual(validator.version, "3.1")
      assert.strictEqual(document["info"].version, manifest.version)

      // The docs page (Scalar) sends a bearer token only for the scheme named `bearer`, in lower case;
      // beside it, the console's session cookie.
      assert.deepStrictEqual(document["components"].securitySchemes, {
        bearer: { type: "http", scheme: "bearer", description: document["components"].securitySchemes.bearer.description },
        session: { type: "apiKey", in: "cookie", name: "chainquery_session", description: document["components"].securitySchemes.session.description }
      })
      // The docs page embeds the same document and picks the bearer scheme for its requests.
      const docs = await (await fetch(`${service.url}/docs`)).text()
      assert.include(docs, `"preferredSecurityScheme":"bearer"`)
      assert.include(docs, `"securitySchemes":{"bearer":{"description":`)
      assert.include(docs, `"type":"http","scheme":"bearer"`)
      const operations = operationsOf(document["paths"])
      assert.isAtLeast(operations.length, 13)
      // Every route but the console's sign-in (which takes the token in its body) is behind the token or a session.
      const signIn = operations.filter(({ method, path }) => method === "post" && path === "/v1/session")
      assert.strictEqual(signIn.length, 1)
      assert.deepStrictEqual(signIn[0]!.operation["security"] ?? [], [], "the sign-in needs no credential")
      for (const { method, operation, path } of operations.filter((each) => !signIn.includes(each))) {
        assert.deepStrictEqual(operation["security"], [{ bearer: [] }, { session: [] }], `${method} ${path}`)
        const url = path.replace("{id}", "str_000000000000000000000").replace("{deliveryId}", "msg_000000000000000000000")
        const answer = await fetch(`${service.url}${url}`, { method: method.toUpperCase() })
        assert.strictEqual(answer.status, 401, `${method} ${path} without a token`)
      }
      // The probes, /metrics and the docs need no token, and are not in the document's secured paths.
      for (const open of ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]) {
        assert.notProperty(document["paths"], open)
        const answer = await fetch(`${service.url}${open}`)
        assert.include([200, 503], answer.status, `${open} without a token`)
      }

      const webhooks = operationsOf(document["webhooks"] ?? {})
      for (const { method, operation, path } of [...operations, ...webhooks]) {
        assert.isString(operation["summary"], `${method} ${path}: a summary`)
        assert.isAbove(operation["summary"].length, 0)
        assert.isString(operation["description"], `${method} ${path}: a description`)
        assert.isAbove(operation["description"].length, 0)
        for (const parameter of operation["parameters"] ?? []) {
          assert.isString(parameter.description, `${method} ${path}: parameter ${parameter.name}`)
        }
      }
      // The events' fields too (the watch package's Schemas): every property of the document.
      assert.deepStrictEqual(undescribed(document, ""), [], "every property has a description")
      assert.isAtLeast(
        document["components"].schemas.WebhookBatch.properties.events.items.anyOf.length,
        WatchEvent.kinds.length,
        "every kind of event is in the batch's schema"
      )

      for (const { operation, path } of operations) {
        const limit = (operation["parameters"] ?? []).find((parameter: Json) => parameter.name === "limit")
        if (limit !== undefined) assert.deepInclude(limit.schema, { type: "integer", minimum: 1, maximum: 1000 }, path)
      }
      assert.deepStrictEqual(
        operations.filter(({ operation }) => (operation["parameters"] ?? []).some((parameter: Json) => parameter.name === "limit")).map(({ path }) => path),
        ["/v1/streams", "/v1/streams/{id}/wallets", "/v1/streams/{id}/deliveries"]
      )

      // The batch: its headers, and its body's schema, which decodes what the service writes.
      assert.deepStrictEqual(webhooks.map(({ method, path }) => `${method} ${path}`), ["post batch"])
      const batch = webhooks[0]!.operation
      assert.deepStrictEqual(
        batch["parameters"].map((parameter: Json) => [parameter.name, parameter.in, parameter.required]),
        [["webhook-id", "header", true], ["webhook-timestamp", "header", true], ["webhook-signature", "header", true]]
      )
      assert.deepStrictEqual(batch["requestBody"].content["application/json"].schema, { $ref: "#/components/schemas/WebhookBatch" })
      const written = JSON.parse(DeliveryWorker.body({
        streamId: "str_0mwxpj6rv44d02b0ad6f3",
        deliveryId: "msg_0mwxpjb0d2b8bb168ebda",
        sequence: 7,
        replaces: [{ scope: "0x1", from: 100n, to: 100n }],
        coverage: [{ scope: "0x1", from: 100n, to: 120n }, { scope: "aptos:mainnet", from: 5n, to: 9n }],
        wallets: [{ scope: "0x1", address: "0x48d3" + "ef".repeat(18), coveredFrom: 110n }, { scope: "aptos:testnet", address: "0x" + "1".repeat(64), coveredFrom: 3n }],
        events: [JSON.stringify(event)]
      })) as Json
      Schema.decodeUnknownSync(WebhookBatch.WebhookBatch)(written, { onExcessProperty: "error" })
      const component = document["components"].schemas.WebhookBatch
      assert.deepStrictEqual(Object.keys(component.properties).toSorted(), Object.keys(written).toSorted())
      assert.deepStrictEqual([...component.required].toSorted(), Object.keys(written).toSorted())
    })
  }, 180_000)
})
