/**
 * The balanced ledger of `./run bench delivery`: a receiver that stamps every event it gets (t3)
 * with the delivery that carried it, the events the simulator produced for the watched wallets,
 * counted per stream and block from its ground truth, and the check that a run is void unless
 * produced = delivered + missing with missing = 0 (no event lost, none unexpected).
 */
import { Effect } from "effect"
import http from "node:http"
import { BenchFailure } from "../service.support.ts"

/** One event as the receiver had it: its stream, id, block, the delivery that carried it and when it arrived (`Date.now()`). */
export interface Received {
  readonly stream: string
  readonly id: string
  readonly block: number
  readonly delivery: string
  readonly at: number
}

/** A receiver on 127.0.0.1 that answers 200 after `delayMs` (changeable while it runs), recording every live event. */
export interface StampingReceiver {
  readonly url: string
  delayMs: number
  /** Live NFT events by stream and id: the first arrival of each (an event delivered again counts in `repeats`). */
  readonly events: Map<string, Received>
  repeats: number
  requests: number
}

interface Body {
  readonly streamId: string
  readonly deliveryId: string
  readonly phase?: string
  readonly events: ReadonlyArray<{ readonly id: string; readonly kind: string; readonly blockNumber?: string }>
}

const answer = (response: http.ServerResponse) => response.writeHead(200, { "content-type": "text/plain" }).end("ok")

/** Starts a stamping receiver for the scope. */
export const stampingReceiver = Effect.acquireRelease(
  Effect.callback<{ readonly receiver: StampingReceiver; readonly server: http.Server }, BenchFailure>((resume) => {
    const receiver: StampingReceiver = { url: "", delayMs: 0, events: new Map(), repeats: 0, requests: 0 }
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const at = Date.now()
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Body
        receiver.requests++
        if (body.phase !== "history") {
          for (const event of body.events) {
            if (event.kind !== "nft.received" && event.kind !== "nft.sent") continue
            const key = `${body.streamId} ${event.id}`
            if (receiver.events.has(key)) receiver.repeats++
            else receiver.events.set(key, { stream: body.streamId, id: event.id, block: Number(event.blockNumber), delivery: body.deliveryId, at })
          }
        }
        if (receiver.delayMs === 0) answer(response)
        else setTimeout(answer, receiver.delayMs, response)
      })
    })
    server.once("error", (error) => resume(Effect.fail(new BenchFailure({ message: `receiver: ${error.message}` }))))
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      Object.assign(receiver, { url: `http://127.0.0.1:${port}/hook` })
      resume(Effect.succeed({ receiver, server }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ receiver }) => receiver))

/** A transfer of the simulator's ground truth: its block and its two sides. */
export interface Transfer {
  readonly block: number
  readonly from: string
  readonly to: string
}

/**
 * The events the service owes for `transfers` in blocks `from..to`, per `stream block` key: one
 * `nft.sent` when the sender is watched by a stream, one `nft.received` when the recipient is
 * (both, for a wallet sending to itself).
 */
export const owedFor = (transfers: ReadonlyArray<Transfer>, from: number, to: number, streamOf: ReadonlyMap<string, string>): Map<string, number> => {
  const owed = new Map<string, number>()
  const owe = (address: string, block: number) => {
    const stream = streamOf.get(address.toLowerCase())
    if (stream !== undefined) owed.set(`${stream} ${block}`, (owed.get(`${stream} ${block}`) ?? 0) + 1)
  }
  for (const transfer of transfers) {
    if (transfer.block < from || transfer.block > to) continue
    owe(transfer.from, transfer.block)
    owe(transfer.to, transfer.block)
  }
  return owed
}

/** The events received for blocks `from..to`, per `stream block` key. */
export const receivedFor = (events: Iterable<Received>, from: number, to: number): Map<string, number> => {
  const counted = new Map<string, number>()
  for (const event of events) {
    if (event.block < from || event.block > to) continue
    counted.set(`${event.stream} ${event.block}`, (counted.get(`${event.stream} ${event.block}`) ?? 0) + 1)
  }
  return counted
}

/** A run's ledger: what was produced, delivered, missing (owed, not received) and unexpected (received, not owed). */
export interface Ledger {
  readonly produced: number
  readonly delivered: number
  readonly missing: number
  readonly unexpected: number
}

/** Compares what was owed with what came, stream by stream and block by block. */
export const balance = (owed: ReadonlyMap<string, number>, came: ReadonlyMap<string, number>): Ledger => {
  let produced = 0
  let missing = 0
  let unexpected = 0
  for (const [key, count] of owed) {
    produced += count
    missing += Math.max(0, count - (came.get(key) ?? 0))
  }
  let received = 0
  for (const [key, count] of came) {
    received += count
    unexpected += Math.max(0, count - (owed.get(key) ?? 0))
  }
  return { produced, delivered: received - unexpected, missing, unexpected }
}

/** Whether a ledger balances: produced = delivered + missing, nothing missing and nothing unexpected. */
export const balanced = (ledger: Ledger): boolean =>
  ledger.produced === ledger.delivered + ledger.missing && ledger.missing === 0 && ledger.unexpected === 0
