/**
 * The front door's counters: API requests per operation and per family, faults injected per
 * kind, rate-limited answers, and compute units spent by the requests passed on. Plain number
 * fields, so counting costs a few increments per request.
 *
 * @internal
 */
import { faultKinds, type FaultKind } from "./FaultConfig.js"
import { type OperationId, operationIds } from "./Routes.js"

/**
 * The family a counted request belongs to (control requests are not counted).
 *
 * `unknown` counts the requests under neither `/api/v2.2/` nor `/aptos/<network>/`.
 */
export type CountedFamily = "A" | "B" | "unknown"

/**
 * A JSON-friendly copy of the counters. `byOperation` has every operation id plus `unknown`
 * (requests that matched no operation); `faults` has every kind; `computeUnits` counts only the
 * requests passed on to the service (not the rate-limited ones, not those answered by a fault).
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const blocksAsked = (snapshot: Simulator.StatsSnapshot) => snapshot.requests.byOperation.getBlock
 * ```
 */
export interface StatsSnapshot {
  readonly since: string
  readonly requests: {
    readonly total: number
    readonly byFamily: Record<CountedFamily, number>
    readonly byNetwork: { readonly mainnet: number; readonly testnet: number }
    readonly byOperation: Record<OperationId | "unknown", number>
  }
  readonly faults: Record<FaultKind, number> & { readonly total: number }
  readonly rateLimited: number
  readonly computeUnits: {
    readonly total: number
    readonly byOperation: Record<OperationId | "unknown", number>
  }
}

const zeroes = <K extends string>(keys: ReadonlyArray<K>): Record<K, number> => {
  const out = {} as Record<K, number>
  for (const key of keys) out[key] = 0
  return out
}

const operationKeys: ReadonlyArray<OperationId | "unknown"> = [...operationIds, "unknown"]

/**
 * The counters.
 *
 * `request` counts each API request, `spent` the units of one passed on, and `reset` zeroes
 * everything: after `request("A", undefined, "getBlock")` and `spent("getBlock", 10)`,
 * `snapshot().computeUnits.total` is 10.
 */
export class Stats {
  private since = new Date()
  private total = 0
  private byFamily = zeroes<CountedFamily>(["A", "B", "unknown"])
  private byNetwork = { mainnet: 0, testnet: 0 }
  private byOperation = zeroes(operationKeys)
  private faultCounts = zeroes(faultKinds)
  private faultTotal = 0
  private rateLimitedCount = 0
  private unitsTotal = 0
  private unitsByOperation = zeroes(operationKeys)

  constructor(private readonly now: () => number = Date.now) {
    this.since = new Date(now())
  }

  /** Counts an API request (before rate limiting and faults). */
  request(family: CountedFamily, network: "mainnet" | "testnet" | undefined, operation: OperationId | undefined): void {
    this.total++
    this.byFamily[family]++
    if (network !== undefined) this.byNetwork[network]++
    this.byOperation[operation ?? "unknown"]++
  }

  /** Counts a fault injected. */
  fault(kind: FaultKind): void {
    this.faultCounts[kind]++
    this.faultTotal++
  }

  /** Counts a request refused by the rate limiter. */
  rateLimited(): void {
    this.rateLimitedCount++
  }

  /** Counts the compute units of a request passed on to the service. */
  spent(operation: OperationId | undefined, units: number): void {
    this.unitsTotal += units
    this.unitsByOperation[operation ?? "unknown"] += units
  }

  /** A JSON-friendly copy of the counters. */
  snapshot(): StatsSnapshot {
    return {
      since: this.since.toISOString(),
      requests: {
        total: this.total,
        byFamily: { ...this.byFamily },
        byNetwork: { ...this.byNetwork },
        byOperation: { ...this.byOperation }
      },
      faults: { ...this.faultCounts, total: this.faultTotal },
      rateLimited: this.rateLimitedCount,
      computeUnits: { total: this.unitsTotal, byOperation: { ...this.unitsByOperation } }
    }
  }

  /** Zeroes every counter. */
  reset(): void {
    this.since = new Date(this.now())
    this.total = 0
    this.byFamily = zeroes<CountedFamily>(["A", "B", "unknown"])
    this.byNetwork = { mainnet: 0, testnet: 0 }
    this.byOperation = zeroes(operationKeys)
    this.faultCounts = zeroes(faultKinds)
    this.faultTotal = 0
    this.rateLimitedCount = 0
    this.unitsTotal = 0
    this.unitsByOperation = zeroes(operationKeys)
  }
}
