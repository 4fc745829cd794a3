/**
 * A webhook receiver on 127.0.0.1 that checks every request with the receiver kit
 * (`@chainquery/webhook-receiver`), as a user's receiver would: per stream it keeps the kit's
 * state, takes the batches the kit accepts, answers 2xx to a batch it already processed, and
 * records every error the kit reports (a gap or an overlap is then taken anyway, with the state the
 * kit gives, so that the run goes on and every later problem is seen too).
 *
 * Its `policy` decides, before the kit looks at a request, to fail it (a status: nothing is
 * processed), to take it (`"take"`), or to answer 200 and throw it away (`"drop"`).
 */
import { type Batch, type Missing, Receive, type ReceiveError, ReceiverState } from "@chainquery/webhook-receiver"
import { createServer, type IncomingMessage, type Server } from "node:http"

/** What the receiver does with a request. */
export type Decision = number | "take" | "drop"

/** A batch the receiver took, and when. */
export interface Taken {
  readonly batch: Batch.Batch
  readonly at: number
}

const read = async (request: IncomingMessage): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export class ProvingReceiver {
  /** Each stream's secret (a list of them while a rotation is taken over). */
  readonly secrets = new Map<string, string | ReadonlyArray<string>>()
  /** Every request as it came (headers, exact body), in order, before any decision. */
  readonly requests: Array<{ readonly headers: IncomingMessage["headers"]; readonly body: string }> = []
  /** The test events the kit recognised (answered 200, the state left as it was). */
  readonly tests: Array<{ readonly streamId: string; readonly deliveryId: string }> = []
  readonly states = new Map<string, ReceiverState.ReceiverState>()
  readonly taken = new Map<string, Array<Taken>>()
  readonly errors: Array<{ readonly streamId: string; readonly error: ReceiveError.ReceiveError }> = []
  readonly dropped: Array<Batch.Batch> = []
  /** The batches sent again that filled holes of the kit's state, with what each filled. */
  readonly healed: Array<{ readonly streamId: string; readonly sequence: number; readonly filled: Missing.Missing }> = []
  /** The status of every answer, in order. */
  readonly answers: Array<number> = []
  /** The `webhook-id`s each batch came with, by `<stream id>/<sequence>` (one each, however often it came). */
  readonly webhookIds = new Map<string, Set<string>>()
  policy: (request: { readonly streamId: string; readonly sequence: number; readonly body: unknown }) => Decision = () => "take"
  private server: Server | undefined
  url = ""

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      void this.handle(request).then(
        (status) => {
          this.answers.push(status)
          response.writeHead(status).end()
        },
        (error: unknown) => response.writeHead(500).end(String(error))
      )
    })
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve))
    const address = this.server.address()
    this.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
  }

  private async handle(request: IncomingMessage): Promise<number> {
    const body = await read(request)
    this.requests.push({ headers: request.headers, body: body.toString("utf8") })
    const parsed = JSON.parse(body.toString("utf8")) as { streamId: string; sequence: number }
    const key = `${parsed.streamId}/${parsed.sequence}`
    ;(this.webhookIds.get(key) ?? this.webhookIds.set(key, new Set()).get(key)!).add(String(request.headers["webhook-id"]))
    const decision = this.policy({ streamId: parsed.streamId, sequence: parsed.sequence, body: parsed })
    if (typeof decision === "number") return decision
    const secret = this.secrets.get(parsed.streamId)
    if (secret === undefined) return 401
    const state = this.states.get(parsed.streamId) ?? ReceiverState.initial
    const result = await Receive.receivePromise({ headers: request.headers, body, secret, state })
    if (!result.ok && result.error._tag === "AlreadyProcessed") return 200
    if (result.ok && result.test === true) {
      this.tests.push({ streamId: parsed.streamId, deliveryId: result.batch.deliveryId })
      return 200
    }
    if (decision === "drop") {
      if (result.ok) this.dropped.push(result.batch)
      return 200
    }
    if (result.ok && result.healed !== undefined) this.healed.push({ streamId: parsed.streamId, sequence: result.batch.sequence, filled: result.healed })
    if (result.ok) return this.take(parsed.streamId, result.batch, result.state)
    this.errors.push({ streamId: parsed.streamId, error: result.error })
    if (result.error._tag === "Gap" || result.error._tag === "Overlap") return this.take(parsed.streamId, result.error.batch, result.error.state)
    return 400
  }

  private take(streamId: string, batch: Batch.Batch, state: ReceiverState.ReceiverState): number {
    this.states.set(streamId, state)
    const list = this.taken.get(streamId) ?? this.taken.set(streamId, []).get(streamId)!
    list.push({ batch, at: Date.now() })
    return 200
  }

  /** The events of a stream's batches taken, in order. */
  events(streamId: string): ReadonlyArray<Batch.Event> {
    return (this.taken.get(streamId) ?? []).flatMap((taken) => taken.batch.events)
  }

  /** The block a stream is covered to on `scope`, per the kit's state (`undefined`: nothing yet). */
  coveredTo(streamId: string, scope: string): bigint | undefined {
    const covered = this.states.get(streamId)?.coverage[scope]
    return covered === undefined ? undefined : BigInt(covered.to)
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.server === undefined ? resolve() : this.server.close(() => resolve())))
  }
}
