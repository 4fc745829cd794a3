/**
 * @chainquery/console: the operator console of `chainquery-watcher serve`, served on the service's
 * port at `/console`. Its page is a small script bundled at build time from `app/` (the management
 * API's own `HttpApi` definitions and its typed client, `ManagementClient.makeForSession`, so
 * it stays in step with the API), signed in with a console session (`POST /v1/session`), and
 * loading nothing from elsewhere.
 *
 * - `ConsoleAssets`: the built files (the page, its script and stylesheet, with their gzip);
 * - `ConsoleRoutes`: `/console` and `/console/assets/*`, with headers that keep the page home.
 *
 * @example
 * ```ts
 * import { ConsoleRoutes } from "@chainquery/console"
 *
 * const routes = ConsoleRoutes.layer
 * ```
 * @since 0.1.0
 */
export * as ConsoleAssets from "./ConsoleAssets.js"
export * as ConsoleRoutes from "./ConsoleRoutes.js"
