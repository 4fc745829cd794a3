/**
 * @chainquery/watch-service: the watcher as a webhook service, as Effect layers. Streams of
 * wallets, each with a URL that gets signed batches of its wallets' events (Standard Webhooks), a
 * management API, PostgreSQL, and several runners on `effect/cluster`. `chainquery-watcher serve`
 * (in `@chainquery/watcher`) runs it from flags. Its folders are its floors, each importing only
 * those below:
 *
 * - `model/`: `Scopes` (chains and Aptos networks), `ServiceConfig`;
 * - `store/`: `StreamStore`, `StreamSecrets` (secrets encrypted at rest), `DeliveryStore`,
 *   `Outbox` (events fanned out to streams), `Coverage` (the blocks each batch accounts for),
 *   `Statistics` (the planner's), `ServiceMigrations` (the tables), `EmbeddedDatabase`,
 *   `WalletAdmission` (wallets added to a stream, placed under their scans' locks), `Resend`
 *   (batches sent again as they were), `HistoryStore` (the history owed for wallets added with one),
 *   `ConsoleSessions` (the console's sign-ins), `Activity` (a stream's last hour);
 * - `delivery/`: `DeliveryWorker` (one stream's webhooks), `DeliveryWake` (waking a stream's
 *   delivery: its cluster entity), `DeliverySlots` (a runner's webhooks in flight at once),
 *   `WebhookSender` (one POST), `WebhookSignature` (Standard Webhooks), `WebhookBatch` (what a
 *   receiver gets), `AddressPolicy` (webhook URLs refused), `Heartbeats` (batches of quiet
 *   streams), `ServiceMetrics`;
 * - `scan/` (above `delivery/`: a scan wakes the streams it gave events): `Scanner` (a scope's
 *   wallets read each cycle), `ScanSignals` (what the scanners look at, read once a runner), `HistoryScan` (the histories owed, read), `KeyRefusal` (a refused API key);
 * - `api/`: `ManagementApi` (the HttpApi) with `ApiHandlers`, `SessionHandlers`, `ApiMiddleware` and `ApiDocument`,
 *   `ManagementClient` (a typed client of it, for Effect programs), `ServiceHttp` (its server,
 *   within `HttpLimits`, started by `HttpStarting`), `Readiness`, `ApiVersion`;
 * - `runtime/`: `ServiceCluster` (the runners), `ServiceMain` (the whole service as one layer).
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const paths = Object.keys(OpenApi.fromApi(ManagementApi.Api).paths) // ["/v1/streams", …]
 * ```
 * @since 0.5.0
 */
export * as Activity from "./store/Activity.js"
export * as AddressPolicy from "./delivery/AddressPolicy.js"
export * as ApiDocument from "./api/ApiDocument.js"
export * as ApiHandlers from "./api/ApiHandlers.js"
export * as ApiMiddleware from "./api/ApiMiddleware.js"
export * as ApiVersion from "./api/ApiVersion.js"
export * as ChainHeads from "./store/ChainHeads.js"
export * as ConsoleSessions from "./store/ConsoleSessions.js"
export * as Coverage from "./store/Coverage.js"
export * as DeliverySlots from "./delivery/DeliverySlots.js"
export * as DeliveryStore from "./store/DeliveryStore.js"
export * as DeliveryWake from "./delivery/DeliveryWake.js"
export * as DeliveryWorker from "./delivery/DeliveryWorker.js"
export * as EmbeddedDatabase from "./store/EmbeddedDatabase.js"
export * as FilterSettings from "./api/FilterSettings.js"
export * as Heartbeats from "./delivery/Heartbeats.js"
export * as HistoryScan from "./scan/HistoryScan.js"
export * as HistoryStarts from "./api/HistoryStarts.js"
export * as HistoryStore from "./store/HistoryStore.js"
export * as HttpLimits from "./api/HttpLimits.js"
export * as HttpStarting from "./api/HttpStarting.js"
export * as KeyRefusal from "./scan/KeyRefusal.js"
export * as ManagementApi from "./api/ManagementApi.js"
export * as ManagementClient from "./api/ManagementClient.js"
export * as Outbox from "./store/Outbox.js"
export * as Readiness from "./api/Readiness.js"
export * as Resend from "./store/Resend.js"
export * as Scanner from "./scan/Scanner.js"
export * as ScanSignals from "./scan/ScanSignals.js"
export * as Scopes from "./model/Scopes.js"
export * as ServiceCluster from "./runtime/ServiceCluster.js"
export * as ServiceConfig from "./model/ServiceConfig.js"
export * as ServiceHttp from "./api/ServiceHttp.js"
export * as ServiceMain from "./runtime/ServiceMain.js"
export * as ServiceMetrics from "./delivery/ServiceMetrics.js"
export * as ServiceMigrations from "./store/ServiceMigrations.js"
export * as SessionHandlers from "./api/SessionHandlers.js"
export * as SignedRequest from "./delivery/SignedRequest.js"
export * as Statistics from "./store/Statistics.js"
export * as StreamFilters from "./model/StreamFilters.js"
export * as StreamSecrets from "./store/StreamSecrets.js"
export * as StreamStore from "./store/StreamStore.js"
export * as TestEvent from "./delivery/TestEvent.js"
export * as WalletAdmission from "./store/WalletAdmission.js"
export * as WebhookBatch from "./delivery/WebhookBatch.js"
export * as WebhookSender from "./delivery/WebhookSender.js"
export * as WebhookSignature from "./delivery/WebhookSignature.js"
