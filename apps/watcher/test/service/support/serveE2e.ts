/**
 * Support for the end-to-end tests of `serve`: the built CLI run as `chainquery-watcher serve`
 * (a child process, on a fresh PostgreSQL database of the run's server), its management API, and
 * a webhook receiver on 127.0.0.1 that checks every signature, records every attempt, and answers
 * as a test tells it to (200, an error status, or no answer until the service gave up).
 */
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Exit, Redacted, Scope } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { databaseUrlFor, freshDatabaseName } from "../../../../../packages/watch/test/support/postgres.js"
import { WebhookSignature } from "@chainquery/watch-service"
import { type Sim, sleep, Watcher } from "../../e2e/support/e2e.js"

export const apiToken = "e2e-token-0123456789abcdef"

/** A fresh database on the run's PostgreSQL server, dropped by `drop`. */
export const freshDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const name = await Effect.runPromise(Scope.provide(freshDatabaseName, scope))
  return { url: databaseUrlFor(name), drop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** The flags of a service reading the simulator, delivering to 127.0.0.1, fast; `extra` flags replace the defaults they name. */
export const serveArgs = (sim: Sim, extra: ReadonlyArray<string> = []): Array<string> => {
  const defaults: ReadonlyArray<readonly [string, string | undefined]> = [
    ["--port", "0"],
    ["--api-token", apiToken],
    ["--allow-private-webhooks", undefined],
    ["--evm-base-url", sim.evmUrl],
    ["--ledger-base-url", sim.ledgerUrl.mainnet],
    ["--ledger-testnet-base-url", sim.ledgerUrl.testnet],
    ["--api-key", sim.apiKey],
    ["--interval", "300ms"]
  ]
  const kept = defaults.filter(([flag]) => !extra.includes(flag)).flatMap(([flag, value]) => value === undefined ? [flag] : [flag, value])
  return ["serve", ...kept, ...extra]
}

/** A running service: its process and its base URL. */
export interface Service {
  readonly process: Watcher
  readonly url: string
}

/** Starts `serve` on `databaseUrl`; resolves once it printed where it listens. */
export const startService = async (databaseUrl: string, args: ReadonlyArray<string>): Promise<Service> => {
  const process = new Watcher(args, { DATABASE_URL: databaseUrl })
  await process.waitFor("listening on", () => /^listening on http:\/\/\S+\n/.test(process.stdout), 60_000)
  const url = /^listening on (http:\/\/\S+)\n/.exec(process.stdout)![1]!
  return { process, url }
}

/** Calls the management API; answers its status and JSON body. */
export const call = async (service: Service | string, method: string, path: string, body?: unknown): Promise<{ readonly status: number; readonly body: any }> => {
  const base = typeof service === "string" ? service : service.url
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

/** One request the receiver got: its headers' id, its body, and what it answered. */
export interface Attempt {
  readonly webhookId: string
  readonly streamId: string
  readonly sequence: number
  readonly events: ReadonlyArray<{ readonly id: string; readonly kind: string; readonly blockNumber?: string; readonly logIndex?: number }>
  readonly answer: number | "stall"
  readonly verified: boolean
  readonly raw: string
}

/** What the receiver answers a request: a status, or `stall` (no answer for `stallMs`, then 200). */
export type Policy = (request: { readonly streamId: string; readonly webhookId: string }) => number | "stall"

const read = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => (text += chunk))
    request.on("end", () => resolve(text))
    request.on("error", reject)
  })

/** A webhook receiver on 127.0.0.1 that verifies each request with its stream's secret. */
export class Receiver {
  readonly attempts: Array<Attempt> = []
  readonly secrets = new Map<string, string>()
  policy: Policy = () => 200
  /** Requests being answered now, and the most there were at once. */
  inFlight = 0
  maxInFlight = 0
  private server: Server | undefined
  url = ""

  constructor(readonly stallMs = 1_500) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.handle(request, response))
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    const address = this.server.address()
    this.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight)
    response.once("close", () => this.inFlight--)
    const raw = await read(request)
    const body = JSON.parse(raw) as { streamId: string; sequence: number; events: Attempt["events"] }
    const webhookId = String(request.headers["webhook-id"])
    const secret = this.secrets.get(body.streamId)
    const verified = secret !== undefined && Exit.isSuccess(
      await Effect.runPromiseExit(
        WebhookSignature.verify({
          secret: Redacted.make(secret),
          headers: request.headers as Record<string, string | undefined>,
          body: raw,
          now: Math.floor(Date.now() / 1000)
        }).pipe(Effect.provide(NodeCrypto.layerMac))
      )
    )
    const answer = verified ? this.policy({ streamId: body.streamId, webhookId }) : 401
    this.attempts.push({ webhookId, streamId: body.streamId, sequence: body.sequence, events: body.events, answer, verified, raw })
    if (answer === "stall") await sleep(this.stallMs)
    if (!response.destroyed) {
      response.statusCode = answer === "stall" ? 200 : answer
      response.end()
    }
  }

  /** The events of a stream as first received in an answered-200 attempt, in order, each once. */
  received(streamId: string): Array<Attempt["events"][number]> {
    const seen = new Set<string>()
    const out: Array<Attempt["events"][number]> = []
    for (const attempt of this.attempts) {
      if (attempt.streamId !== streamId || attempt.answer !== 200) continue
      for (const event of attempt.events) {
        if (seen.has(event.id)) continue
        seen.add(event.id)
        out.push(event)
      }
    }
    return out
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())))
  }
}

/** Waits until `condition` resolves true (checked every 100 ms), failing with `what` after `timeoutMs`. */
export const until = async (what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(100)
  }
}
