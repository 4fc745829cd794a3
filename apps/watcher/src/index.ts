/**
 * @chainquery/watcher: a long-running CLI that polls wallets through chainquery and prints what
 * changed. Its engine, event model and state are the library `@chainquery/watch`; this package
 * keeps the command line and what only it needs:
 *
 * - `Cli`: the `chainquery-watcher` command, its flags and the `demo` subcommand (`Demo`);
 * - `Runner`: the polling loop behind the command, over `Watch.batches`;
 * - `Output`: NDJSON and aligned, optionally coloured, lines;
 * - `EventWriter`: events written to stdout, waiting until it took them;
 * - the service (`chainquery-watcher serve`): `ManagementApi` (its HTTP API) with `ApiHandlers`
 *   and `ApiMiddleware`, `ServiceHttp` (its server, within `HttpLimits`), `StreamStore`, `DeliveryStore` and `Outbox`, `DeliveryWorker` (one stream's webhooks),
 *   `DeliverySlots` (a runner's webhooks in flight at once), `ServiceCluster` (the runners),
 *   `Coverage` (the blocks each batch accounts for), `Heartbeats` (batches of quiet streams),
 *   `Statistics` (the planner's, refreshed after bulk additions)
 *   (its PostgreSQL tables, created by `ServiceMigrations`), `Scopes` (chains and Aptos networks),
 *   `ServiceConfig`, `Readiness`, `AddressPolicy` (webhook URLs refused), `WebhookSignature`
 *   (Standard Webhooks signing), `WebhookSender` (one POST) and `WebhookBatch` (what a receiver gets,
 *   described with the API by `ApiDocument`);
 * - `Version`: the package's version, the one `--version` and `/openapi.json` give.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
export * as Demo from "./Demo.js"
export * as EventWriter from "./EventWriter.js"
export * as Output from "./Output.js"
export * as Runner from "./Runner.js"
export * as Serve from "./Serve.js"
export * as Version from "./Version.js"
export * as AddressPolicy from "./service/AddressPolicy.js"
export * as ApiDocument from "./service/ApiDocument.js"
export * as ApiHandlers from "./service/ApiHandlers.js"
export * as ApiMiddleware from "./service/ApiMiddleware.js"
export * as Coverage from "./service/Coverage.js"
export * as DeliverySlots from "./service/DeliverySlots.js"
export * as DeliveryStore from "./service/DeliveryStore.js"
export * as DeliveryWorker from "./service/DeliveryWorker.js"
export * as EmbeddedDatabase from "./service/EmbeddedDatabase.js"
export * as Heartbeats from "./service/Heartbeats.js"
export * as HttpLimits from "./service/HttpLimits.js"
export * as HttpStarting from "./service/HttpStarting.js"
export * as KeyRefusal from "./service/KeyRefusal.js"
export * as ManagementApi from "./service/ManagementApi.js"
export * as Outbox from "./service/Outbox.js"
export * as Scanner from "./service/Scanner.js"
export * as Readiness from "./service/Readiness.js"
export * as Scopes from "./service/Scopes.js"
export * as ServiceCluster from "./service/ServiceCluster.js"
export * as ServiceConfig from "./service/ServiceConfig.js"
export * as ServiceHttp from "./service/ServiceHttp.js"
export * as Statistics from "./service/Statistics.js"
export * as ServiceMain from "./service/ServiceMain.js"
export * as ServiceMetrics from "./service/ServiceMetrics.js"
export * as ServiceMigrations from "./service/ServiceMigrations.js"
export * as StreamSecrets from "./service/StreamSecrets.js"
export * as StreamStore from "./service/StreamStore.js"
export * as WebhookBatch from "./service/WebhookBatch.js"
export * as WebhookSender from "./service/WebhookSender.js"
export * as WebhookSignature from "./service/WebhookSignature.js"
