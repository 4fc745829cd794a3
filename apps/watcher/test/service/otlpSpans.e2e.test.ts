/**
 * `serve --otlp-url`: the spans an operator reads a trace by (issue #40) reach a collector on
 * 127.0.0.1, each under its parent: a management request (the HTTP server's span) and the
 * admission of its wallets under it; each cycle of the engine, with the scope it scans; each
 * batch's commit and the fan-out of its events to the streams (`Outbox.enqueue`) under it; each
 * delivery attempt (stream, batch, outcome) under the drain of its stream. No secret (the API
 * token, the data API key, a stream's secret, the database's password) is in anything exported.
 */
import type { AddressInfo } from "node:net"
import { createServer } from "node:http"
import { afterAll, assert, describe, it } from "vitest"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, freshDatabase, Receiver, serveArgs, startService, until } from "./support/serveE2e.js"
import { createStreams, delivered, ethHead, scannedTo } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** A span as OTLP/JSON carries it, its attributes made a record. */
interface Span {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly attributes: Readonly<Record<string, unknown>>
}

type AnyValue = { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean; readonly doubleValue?: number }
const valueOf = (value: AnyValue): unknown =>
  value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.boolValue ?? value.doubleValue

/** The spans of one OTLP/JSON export body. */
const spansOf = (body: string): Array<Span> => {
  const parsed = JSON.parse(body) as {
    readonly resourceSpans?: ReadonlyArray<{
      readonly scopeSpans?: ReadonlyArray<{
        readonly spans?: ReadonlyArray<{
          readonly name: string
          readonly traceId: string
          readonly spanId: string
          readonly parentSpanId?: string
          readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: AnyValue }>
        }>
      }>
    }>
  }
  return (parsed.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        name: span.name,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId === undefined || span.parentSpanId === "" ? undefined : span.parentSpanId,
        attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)]))
      }))
    )
  )
}

describe("serve: spans over OTLP", () => {
  it("a request and its admission, the engine's cycles per scope, the fan-out, each delivery attempt: under their parents, no secret in any", async () => {
    const bodies: Array<string> = []
    const collector = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        if (request.url === "/v1/traces") bodies.push(Buffer.concat(chunks).toString("utf8"))
        response.setHeader("content-type", "application/json")
        response.end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())))
    const receiver = new Receiver()
    await receiver.start()
    cleanups.push(() => receiver.close())

    await withSimulator({ seed: 4001, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const otlp = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`
      const service = await startService(database.url, serveArgs(sim, ["--otlp-url", otlp, "--min-success-rate", "0"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const streams = await createStreams(service, sim, receiver)
      const wallets = [...new Set(streams.flatMap((stream) => stream.wallets))]
      await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
      await drive(sim, { total: 30, minStep: 1, maxStep: 3, everyMs: 150, random: seeded(4002) })
      await scannedTo(database.url, wallets, await ethHead(sim), 120_000)
      await delivered(service, streams, 120_000)
      await until("a delivered webhook", () => Promise.resolve(receiver.attempts.some((attempt) => attempt.answer === 200 && attempt.events.length > 0)), 60_000)
      // Stopped: whatever was not exported yet is flushed.
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))

      const spans = bodies.flatMap(spansOf)
      const byId = new Map(spans.map((span) => [span.spanId, span]))
      const named = (name: string) => spans.filter((span) => span.name === name)
      const parentOf = (span: Span) => (span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId))
      const ancestorsOf = (span: Span): Array<string> => {
        const parent = parentOf(span)
        return parent === undefined ? [] : [parent.name, ...ancestorsOf(parent)]
      }

      // A management request, and the admission of its wallets under it.
      const admissions = named("WalletAdmission.admit")
      assert.strictEqual(admissions.length, streams.length, "one admission per POST /v1/streams/{id}/wallets")
      for (const admission of admissions) {
        const request = parentOf(admission)
        assert.strictEqual(request?.name, "POST", "the admission's parent is the request's server span")
        assert.match(String(request?.attributes["url.path"]), /^\/v1\/streams\/str_[0-9a-z]+\/wallets$/)
        assert.strictEqual(request?.attributes["http.response.status_code"], 200)
        assert.include(streams.map((stream) => stream.id), admission.attributes["stream.id"])
      }

      // The engine's cycles, each saying its scope; the batches' commits and their fan-out.
      const cycles = named("Watch.cycle")
      assert.isAbove(cycles.length, 5)
      for (const cycle of cycles) assert.strictEqual(cycle.attributes["scope"], "0x1")
      const fanOuts = named("Outbox.enqueue")
      assert.isAbove(fanOuts.length, 0)
      for (const fanOut of fanOuts) {
        assert.strictEqual(fanOut.attributes["scope"], "0x1")
        assert.isAbove(Number(fanOut.attributes["events.count"]), 0)
        // In the commit's transaction, in a cycle (its write-ahead) or a batch's acknowledgement.
        const above = ancestorsOf(fanOut)
        assert.strictEqual(above[0], "sql.transaction", "the fan-out is in the commit's transaction")
        assert.isTrue(above.includes("Watch.cycle") || above.includes("Scanner.batch"), `the fan-out is part of a cycle's commit: ${above.join(" < ")}`)
      }

      // Each delivery attempt, under its stream's drain, with the stream, the batch and the outcome.
      const attempts = named("DeliveryWorker.attempt")
      assert.isAtLeast(attempts.length, receiver.attempts.length)
      for (const attempt of attempts) {
        const drain = parentOf(attempt)
        assert.strictEqual(drain?.name, "DeliveryWorker.deliverDue")
        assert.strictEqual(drain?.attributes["stream.id"], attempt.attributes["stream.id"])
        assert.include(streams.map((stream) => stream.id), attempt.attributes["stream.id"])
        assert.isAtLeast(Number(attempt.attributes["delivery.sequence"]), 1)
      }
      const delivered200 = attempts.filter((attempt) => attempt.attributes["delivery.result"] === "delivered")
      assert.isAbove(delivered200.length, 0)
      for (const attempt of delivered200) assert.strictEqual(attempt.attributes["http.response.status_code"], 200)

      // No secret anywhere in what was exported.
      const exported = bodies.join("\n")
      // The test server's password is a plain word ("postgres", as in db.system): looked for as a URL has it.
      const password = new URL(database.url).password
      assert.notStrictEqual(password, "", "the database URL has a password")
      const secrets = [
        apiToken,
        sim.apiKey,
        ...[...receiver.secrets.values()].flatMap((secret) => [secret, secret.slice("whsec_".length)]),
        database.url,
        `:${password}@`
      ]
      for (const secret of secrets) assert.notInclude(exported, secret, "a secret in an exported span")
    })
  }, 300_000)
})
