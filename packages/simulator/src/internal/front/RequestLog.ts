/**
 * The front door's request log: the latest API requests (those `Stats` counts, not control
 * requests), kept in a ring of a fixed capacity, so a test can see which client asked for what
 * and when. Capacity 0 (the default) keeps nothing and costs nothing per request.
 *
 * @internal
 */
import type { OperationId } from "./Routes.js"
import type { CountedFamily } from "./Stats.js"

/**
 * One API request as the front door met it, before rate limiting and faults: when it arrived
 * (epoch milliseconds), its method, its path and query exactly as requested (family B with its
 * `/aptos/<network>` prefix, array query forms not yet rewritten), the operation it matched
 * (`unknown` for none), its family, its network (family B only) and its `User-Agent` header.
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const who = (request: Simulator.LoggedRequest) => `${request.userAgent ?? "?"} ${request.method} ${request.path}`
 * ```
 */
export interface LoggedRequest {
  readonly at: number
  readonly method: string
  readonly path: string
  readonly operation: OperationId | "unknown"
  readonly family: CountedFamily
  readonly network: "mainnet" | "testnet" | undefined
  readonly userAgent: string | undefined
}

/**
 * Why a request log capacity is not valid, or `undefined` when it is: it must be a non-negative
 * safe integer.
 *
 * `requestLogProblem(3)` is `undefined`; `requestLogProblem(-1)` is
 * `"requestLog must be a non-negative integer, got -1"`.
 */
export const requestLogProblem = (capacity: number): string | undefined =>
  Number.isSafeInteger(capacity) && capacity >= 0
    ? undefined
    : `requestLog must be a non-negative integer, got ${String(capacity)}`

/**
 * A ring of the latest `capacity` requests. `add` keeps one (dropping the oldest when full),
 * `entries` lists them oldest first, `clear` empties the ring. Throws when the capacity is not
 * valid (see {@link requestLogProblem}).
 *
 * With `new RequestLog(2)`, after adding requests a, b and c, `entries()` is `[b, c]`.
 */
export class RequestLog {
  private readonly ring: Array<LoggedRequest> = []
  /** Where the next request goes once the ring is full: the oldest entry. */
  private oldest = 0

  constructor(readonly capacity: number) {
    const problem = requestLogProblem(capacity)
    if (problem !== undefined) throw new Error(problem)
  }

  /** Whether requests are kept at all (a capacity above 0). */
  get enabled(): boolean {
    return this.capacity > 0
  }

  /** Keeps a request, dropping the oldest one when the ring is full. */
  add(request: LoggedRequest): void {
    if (this.ring.length < this.capacity) {
      this.ring.push(request)
    } else if (this.capacity > 0) {
      this.ring[this.oldest] = request
      this.oldest = (this.oldest + 1) % this.capacity
    }
  }

  /** The requests kept, oldest first (a copy). */
  entries(): ReadonlyArray<LoggedRequest> {
    return [...this.ring.slice(this.oldest), ...this.ring.slice(0, this.oldest)]
  }

  /** Forgets every request kept. */
  clear(): void {
    this.ring.length = 0
    this.oldest = 0
  }
}
