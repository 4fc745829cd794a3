/**
 * @chainquery/transport: what the chainquery clients share: the request pipeline (API key as a
 * `Redacted`, timeouts, retries honouring `Retry-After`, a compute-unit budget, a body size cap,
 * typed errors) and the building of requests from the HttpApi definitions.
 *
 * @since 0.1.0
 */
export * as BaseUrl from "./BaseUrl.js"
export * as ComputeBudget from "./ComputeBudget.js"
export * as Endpoint from "./Endpoint.js"
export * as ResponseBody from "./ResponseBody.js"
export * as RetryPolicy from "./RetryPolicy.js"
export * as Scrub from "./Scrub.js"
export * as Transport from "./Transport.js"
export * as Version from "./Version.js"
export * as Operation from "./Operation.js"
