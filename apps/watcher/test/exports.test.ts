/**
 * The service moved to `@chainquery/watch-service` (issue #40) without breaking an import of
 * `@chainquery/watcher`: every name the package exported before is still exported, and each of the
 * service's modules is the package's own (one module, not a copy that could drift). `ServiceMain`
 * is the app's: the package's with the clients configured from the CLI's options; `ServiceConfig`
 * too, to keep `DeliveryWake`, which the package declares in a module of its own.
 */
import { describe, expect, it } from "vitest"
import * as Service from "@chainquery/watch-service"
import * as Watcher from "../src/index.js"

/** What `@chainquery/watcher` exported before the move (its `src/index.ts` at 0.4.0). */
const before = [
  "AddressPolicy", "ApiDocument", "ApiHandlers", "ApiMiddleware", "Cli", "Coverage", "DeliverySlots", "DeliveryStore",
  "DeliveryWorker", "Demo", "EmbeddedDatabase", "EventWriter", "Heartbeats", "HttpLimits", "HttpStarting", "KeyRefusal",
  "ManagementApi", "Outbox", "Output", "Readiness", "Runner", "Scanner", "Scopes", "Serve", "ServiceCluster", "ServiceConfig",
  "ServiceHttp", "ServiceMain", "ServiceMetrics", "ServiceMigrations", "Statistics", "StreamSecrets", "StreamStore",
  "Version", "WebhookBatch", "WebhookSender", "WebhookSignature"
]

describe("@chainquery/watcher's exports", () => {
  it("keep every name exported before the service moved out", () => {
    expect(before.filter((name) => !(name in Watcher))).toEqual([])
  })

  it("hand on the service's modules themselves, each with every name it has there", () => {
    const own = ["ServiceConfig", "ServiceMain"]
    const handedOn = before.filter((name) => name in Service && !own.includes(name)) as Array<keyof typeof Service & keyof typeof Watcher>
    expect(handedOn.length).toBe(28)
    for (const name of handedOn) expect(Watcher[name], name).toBe(Service[name])
  })

  it("keep ServiceConfig's names, DeliveryWake among them, the package's own values", () => {
    expect(Object.keys(Watcher.ServiceConfig).toSorted()).toEqual(["DeliveryWake", "ServiceConfig", "defaultRetrySchedule"])
    expect(Watcher.ServiceConfig.ServiceConfig).toBe(Service.ServiceConfig.ServiceConfig)
    expect(Watcher.ServiceConfig.DeliveryWake).toBe(Service.DeliveryWake.DeliveryWake)
  })

  it("keep ServiceMain's names, run from one set of options as before", () => {
    expect(Object.keys(Watcher.ServiceMain).toSorted()).toEqual(["clients", "layer", "run", "runnerTag"])
    expect(Watcher.ServiceMain.runnerTag({ host: "10.0.0.5", port: 34431 })).toBe(Service.ServiceMain.runnerTag({ host: "10.0.0.5", port: 34431 }))
  })
})
