/**
 * The registry of responses a fault holds open (stalled bodies, delayed answers, huge streams)
 * and of the timers that will finish them, so that a server can end them all at shutdown.
 *
 * @internal
 */
import type { ServerResponse } from "node:http"

/**
 * Responses and timers held open by faults (stalled bodies, delayed answers, huge streams).
 * `close()` clears the timers and destroys the responses, so none keeps a server alive.
 *
 * Call `add(res)` for each response a fault holds (it is forgotten by itself once `res` closes),
 * and `close()` once, at shutdown.
 */
export class OpenResponses {
  private readonly responses = new Set<ServerResponse>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  /** Tracks a response until it closes. */
  add(res: ServerResponse): void {
    if (this.closed) {
      res.destroy()
      return
    }
    if (res.destroyed || this.responses.has(res)) return
    this.responses.add(res)
    res.once("close", () => this.responses.delete(res))
  }

  /** Runs `f` after `ms` milliseconds unless closed first. */
  later(ms: number, f: () => void): void {
    if (this.closed) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      f()
    }, Math.max(0, ms))
    this.timers.add(timer)
  }

  /** How many responses are open. */
  get size(): number {
    return this.responses.size
  }

  /** Ends everything: clears the timers and destroys every tracked response. */
  close(): void {
    this.closed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    for (const res of this.responses) res.destroy()
    this.responses.clear()
  }
}
