/**
 * @chainquery/watcher: a long-running CLI that polls wallets through chainquery and prints what
 * changed. Its engine, event model and state are the library `@chainquery/watch`; this package
 * keeps the command line and what only it needs:
 *
 * - `Cli`: the `chainquery-watcher` command, its flags and the `demo` subcommand (`Demo`);
 * - `Runner`: the polling loop behind the command, over `Watch.batches`;
 * - `Output`: NDJSON and aligned, optionally coloured, lines;
 * - `EventWriter`: events written to stdout, waiting until it took them;
 * - `Serve`: the `serve` subcommand, its flags checked and turned into `ServiceMain`'s options;
 * - `ServiceMain`: the service of `@chainquery/watch-service` with the clients configured from
 *   the flags. The service's own modules (`ManagementApi`, `StreamStore`, `DeliveryWorker`, …)
 *   live in `@chainquery/watch-service` and are re-exported here under the same names;
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
export * as ServiceConfig from "./ServiceConfig.js"
export * as ServiceMain from "./ServiceMain.js"
// The service lives in @chainquery/watch-service; its modules stay importable from here.
export {
  AddressPolicy,
  ApiDocument,
  ApiHandlers,
  ApiMiddleware,
  Coverage,
  DeliverySlots,
  DeliveryStore,
  DeliveryWorker,
  EmbeddedDatabase,
  Heartbeats,
  HttpLimits,
  HttpStarting,
  KeyRefusal,
  ManagementApi,
  Outbox,
  Readiness,
  Scanner,
  Scopes,
  ServiceCluster,
  ServiceHttp,
  ServiceMetrics,
  ServiceMigrations,
  Statistics,
  StreamSecrets,
  StreamStore,
  WebhookBatch,
  WebhookSender,
  WebhookSignature
} from "@chainquery/watch-service"
