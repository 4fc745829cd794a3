/**
 * A compute-unit rate limiter like the service's plans: each API key has a token bucket of
 * `unitsPerSecond` units (capacity = one second's budget), refilled continuously; each request
 * costs its operation's weight. A request that finds too few units is refused with the whole
 * seconds to wait (the `Retry-After` of the 429 the front door sends).
 *
 * @internal
 */
import type { IncomingMessage } from "node:http"
import { defaultWeights, type OperationId, resolveOperationId, unknownWeight } from "./Routes.js"

/**
 * How to limit: units per second per key (`undefined` or 0: no limit) and weight overrides per
 * operation (keys are operation ids like `getBlock`, or labels like `A6`).
 *
 * `{ unitsPerSecond: 25, weights: { getBlock: 25 } }`, for instance, lets one key make one
 * `getBlock` request per second.
 */
export interface RateLimitOptions {
  readonly unitsPerSecond?: number | undefined
  readonly weights?: Readonly<Partial<Record<OperationId, number>>> | undefined
}

/**
 * The key requests are metered by: the `X-API-Key` header, else the token of
 * `Authorization: Bearer <token>`, else `"anonymous"`.
 *
 * A request with `X-API-Key: my-key`, for instance, is metered as `"my-key"`.
 */
export const apiKeyOf = (req: IncomingMessage): string => {
  const header = req.headers["x-api-key"]
  const key = Array.isArray(header) ? header[0] : header
  if (key !== undefined && key !== "") return key
  const authorization = req.headers.authorization
  if (authorization !== undefined && /^bearer /i.test(authorization)) {
    const token = authorization.slice(7).trim()
    if (token !== "") return token
  }
  return "anonymous"
}

interface Bucket {
  tokens: number
  at: number
}

/** Buckets kept before full (idle) ones are forgotten. */
const maxBuckets = 10_000

/**
 * The limiter. A request whose weight exceeds the bucket's capacity passes when the bucket is
 * full and leaves it in debt (so a weight-20 request on a 5 units/s plan waits 4 s afterwards)
 * rather than being refused forever.
 *
 * At 10 units per second, for instance, a `getNFTOwners` (5 units) passes and leaves 5; a
 * `getBlock` (10 units) right after is refused with a retry after 1 s (`check` returns 1); 0.5 s
 * later the bucket is full again and the `getBlock` passes (`check` returns `undefined`).
 */
export class RateLimiter {
  /** False when there is no budget: every request passes. */
  readonly enabled: boolean
  /** Units per second per key (0 when disabled). */
  readonly unitsPerSecond: number
  private readonly weights: Record<OperationId, number>
  private readonly buckets = new Map<string, Bucket>()

  /** Throws when a weight names no operation or is not a non-negative number. */
  constructor(options: RateLimitOptions, private readonly now: () => number = Date.now) {
    const budget = options.unitsPerSecond ?? 0
    if (!Number.isFinite(budget) || budget < 0) throw new Error(`rateLimit.unitsPerSecond must be a non-negative number, got ${budget}`)
    this.unitsPerSecond = budget
    this.enabled = budget > 0
    this.weights = { ...defaultWeights }
    for (const [name, weight] of Object.entries(options.weights ?? {})) {
      const id = resolveOperationId(name)
      if (id === undefined) throw new Error(`rateLimit.weights.${name} is not an operation id (e.g. getBlock or A6)`)
      if (typeof weight !== "number" || !Number.isFinite(weight) || weight < 0) {
        throw new Error(`rateLimit.weights.${name} must be a non-negative number, got ${String(weight)}`)
      }
      this.weights[id] = weight
    }
  }

  /** The units a request of an operation costs (`undefined`: a request that matched none). */
  weightOf(operation: OperationId | undefined): number {
    return operation === undefined ? unknownWeight : this.weights[operation]
  }

  /** Every operation's weight, for stats and documentation. */
  allWeights(): Readonly<Record<OperationId, number>> {
    return { ...this.weights }
  }

  /**
   * Spends the units of one request for `key`: `undefined` when it may pass (the units are
   * spent), else the whole seconds (>= 1) until enough units will be available (nothing spent).
   */
  check(key: string, operation: OperationId | undefined): number | undefined {
    if (!this.enabled) return undefined
    const weight = this.weightOf(operation)
    if (weight <= 0) return undefined
    const capacity = this.unitsPerSecond
    const t = this.now()
    let bucket = this.buckets.get(key)
    if (bucket === undefined) {
      if (this.buckets.size >= maxBuckets) this.forgetIdle(t)
      bucket = { tokens: capacity, at: t }
      this.buckets.set(key, bucket)
    } else if (t > bucket.at) {
      bucket.tokens = Math.min(capacity, bucket.tokens + (t - bucket.at) * capacity / 1000)
      bucket.at = t
    }
    const needed = Math.min(weight, capacity)
    if (bucket.tokens >= needed) {
      bucket.tokens -= weight
      return undefined
    }
    // The epsilon keeps float noise (1.0000000001 s) from adding a whole second.
    return Math.max(1, Math.ceil((needed - bucket.tokens) / capacity - 1e-9))
  }

  /** The units `key` has now (the capacity for an unseen key; negative while in debt). */
  available(key: string): number {
    const bucket = this.buckets.get(key)
    if (bucket === undefined) return this.unitsPerSecond
    const t = this.now()
    return Math.min(this.unitsPerSecond, bucket.tokens + Math.max(0, t - bucket.at) * this.unitsPerSecond / 1000)
  }

  /** Forgets every bucket (all keys full again). */
  reset(): void {
    this.buckets.clear()
  }

  private forgetIdle(t: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + Math.max(0, t - bucket.at) * this.unitsPerSecond / 1000 >= this.unitsPerSecond) {
        this.buckets.delete(key)
      }
    }
  }
}
