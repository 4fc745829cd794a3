/**
 * What the management API's OpenAPI document says beyond what `OpenApi.fromApi` derives: each
 * parameter's description on the parameter itself, numeric query parameters typed as their
 * values are (the generator gives the string a URL carries), and, under the OpenAPI 3.1
 * `webhooks`, the request the service sends to each stream's URL, built from `WebhookBatch`.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import * as WebhookBatch from "../delivery/WebhookBatch.js"

/** A JSON value of the document, as the transforms see it. */
type Json = Record<string, any>

/** The JSON Schema of each field's value (its decoded side), with its description. */
const valueSchemas = (fields: Schema.Struct.Fields): Record<string, Json> =>
  (Schema.toJsonSchemaDocument(Schema.toType(Schema.Struct(fields))).schema as Json)["properties"] ?? {}

/**
 * An operation transform for an endpoint whose query has these `fields`: a numeric one is typed
 * as its value (`limit`: an integer from 1 to 1000), and each carries its description.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ApiDocument } from "@chainquery/watch-service"
 *
 * const typed = ApiDocument.typedQuery({ limit: Schema.optionalKey(Schema.Int) })
 * typed({ parameters: [{ name: "limit", in: "query", schema: { type: "string" } }] })
 * // { parameters: [{ name: "limit", in: "query", schema: { type: "integer", … } }] }
 * ```
 * @since 0.5.0
 */
export const typedQuery = (fields: Schema.Struct.Fields) => {
  const values = valueSchemas(fields)
  return (operation: Json): Json => ({
    ...operation,
    parameters: (operation["parameters"] as Array<Json> | undefined)?.map((parameter) => {
      const value = parameter["in"] === "query" ? values[parameter["name"]] : undefined
      if (value === undefined) return parameter
      const numeric = value["type"] === "integer" || value["type"] === "number"
      return { ...parameter, schema: numeric ? value : { ...parameter["schema"], description: value["description"] } }
    })
  })
}

/** Each parameter's description, from its schema onto the parameter (where documentation tools show it). */
const describeParameters = (paths: Json): Json =>
  Object.fromEntries(Object.entries(paths).map(([path, item]) => [
    path,
    Object.fromEntries(Object.entries(item as Json).map(([method, operation]) => [
      method,
      {
        ...operation,
        parameters: (operation["parameters"] as Array<Json> | undefined)?.map((parameter) =>
          parameter["description"] === undefined && typeof parameter["schema"]?.["description"] === "string"
            ? { ...parameter, description: parameter["schema"]["description"] }
            : parameter
        )
      }
    ]))
  ]))

/** The JSON Schema of a header (its description on the header, as for parameters). */
const headerOf = (schema: Schema.Top): Json => {
  const { description, ...rest } = Schema.toJsonSchemaDocument(schema).schema as Json
  return { description, required: true, schema: rest }
}

/**
 * The webhook the service sends, as an OpenAPI 3.1 webhook: its headers and its body (the
 * `WebhookBatch` component, which the document must hold), and what the service makes of the
 * receiver's answers.
 *
 * @example
 * ```ts
 * import { ApiDocument } from "@chainquery/watch-service"
 *
 * ApiDocument.batchWebhook.post.requestBody.content["application/json"].schema // { $ref: "#/components/schemas/WebhookBatch" }
 * ```
 * @since 0.5.0
 */
export const batchWebhook = {
  post: {
    operationId: "webhooks.batch",
    summary: "A batch of a stream's events",
    description: "POSTed to the stream's `url`, signed per Standard Webhooks with the stream's secret: check the signature on the raw body, " +
      "then take the batch. Retried with the same `webhook-id` and `sequence` until answered 2xx.",
    parameters: Object.entries(WebhookBatch.headers).map(([name, schema]) => ({ name, in: "header", ...headerOf(schema) })),
    requestBody: {
      required: true,
      description: "The batch.",
      content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookBatch" } } }
    },
    responses: {
      "200": { description: "Any 2xx: the batch is delivered, and the stream's next one goes." },
      "410": { description: "Gone: the stream is put in `error` (held, its events kept) until resumed." },
      "500": {
        description: "A 5xx, 408 or 429 (or no answer within `--delivery-timeout`): tried again on `--retry-schedule`, then `failed`. " +
          "Another 4xx, or a redirect (never followed), fails the batch at once."
      }
    }
  }
}

/**
 * The API's document transform: parameters described, and the batch under `webhooks`.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ApiDocument } from "@chainquery/watch-service"
 *
 * const annotations = OpenApi.annotations({ transform: ApiDocument.complete })
 * ```
 * @since 0.5.0
 */
export const complete = (document: Json): Json => ({
  ...document,
  paths: describeParameters(document["paths"] ?? {}),
  webhooks: { ...document["webhooks"], batch: batchWebhook }
})
