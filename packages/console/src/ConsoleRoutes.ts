/**
 * The console's routes, served beside the management API on its port: `/console` (the page; the
 * console's own places are after `#`) and `/console/assets/<name>` (its script and stylesheet,
 * gzip when the browser takes it, kept for good: their names change with their content). Every
 * answer forbids the page to load or send anything elsewhere (`Content-Security-Policy`), to be
 * framed, or to pass a referrer. The page holds no secret: everything it shows comes from the API,
 * which needs a sign-in.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as ConsoleAssets from "./ConsoleAssets.js"

/**
 * The headers of every answer of the console: nothing from elsewhere, no framing, no referrer.
 *
 * @example
 * ```ts
 * import { ConsoleRoutes } from "@chainquery/console"
 *
 * ConsoleRoutes.securityHeaders["content-security-policy"].includes("default-src 'none'") // true
 * ```
 * @since 0.1.0
 */
export const securityHeaders = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
} as const

/** `asset` as answered to `request`: gzip when it is taken. */
const answer = (request: HttpServerRequest.HttpServerRequest, asset: ConsoleAssets.Asset, cacheControl: string) => {
  const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
  return HttpServerResponse.uint8Array(gzip ? asset.gzip : asset.bytes, {
    contentType: asset.contentType,
    headers: {
      ...securityHeaders,
      "cache-control": cacheControl,
      vary: "accept-encoding",
      ...(gzip ? { "content-encoding": "gzip" } : {})
    }
  })
}

/**
 * The routes over `assets` (read once with `ConsoleAssets.load`).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ConsoleAssets, ConsoleRoutes } from "@chainquery/console"
 *
 * const routes = Layer.unwrap(Effect.map(ConsoleAssets.load(), ConsoleRoutes.over))
 * ```
 * @since 0.1.0
 */
export const over = (assets: ConsoleAssets.Assets) => {
  const page = Effect.map(HttpServerRequest.HttpServerRequest, (request) => answer(request, assets.page, "no-store"))
  // The router takes `/console/` for `/console` too.
  return Layer.mergeAll(
    HttpRouter.add("GET", "/console", page),
    HttpRouter.add(
      "GET",
      "/console/assets/:name",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { name } = yield* HttpRouter.params
        const asset = name === undefined ? undefined : assets.byName(name)
        if (asset === undefined) {
          return HttpServerResponse.jsonUnsafe({ error: "not_found", message: `no console file ${name ?? ""}` }, { status: 404, headers: securityHeaders })
        }
        return answer(request, asset, "public, max-age=31536000, immutable")
      })
    )
  )
}

/**
 * The console's routes over its built files, for `ServiceMain`'s `routes` (or any `HttpRouter`):
 * building it reads the files; missing, they are a defect (`ConsoleNotBuilt`: the package was not
 * built), and the server does not start.
 *
 * @example
 * ```ts
 * import { ConsoleRoutes } from "@chainquery/console"
 *
 * const routes = ConsoleRoutes.layer // beside the API: ServiceMain.layer({ ...options, routes }, clients)
 * ```
 * @since 0.1.0
 */
export const layer: Layer.Layer<never, never, HttpRouter.HttpRouter> = Layer.unwrap(Effect.map(Effect.orDie(ConsoleAssets.load()), over))
