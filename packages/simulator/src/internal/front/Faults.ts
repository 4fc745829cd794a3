/**
 * Fault injection decisions: the current configuration (replaceable at run time) and, per
 * request, which fault to inject, drawn deterministically from the seed in request order.
 *
 * Every decision draws exactly four numbers from the `faults` stream, whatever the
 * configuration, so the n-th request meets the same numbers whether faults were on or off
 * before it, and two servers with the same seed and request sequence inject the same faults.
 *
 * @internal
 */
import { Random } from "../Random.js"
import {
  defaultHugeBytes,
  type FaultConfig,
  type FaultKind,
  parseFaultConfig,
  type ReplacingKind,
  replacingKinds,
  type RouteFaults
} from "./FaultConfig.js"
import { type OperationId, operationIds } from "./Routes.js"

export {
  defaultHugeBytes,
  type FaultConfig,
  type FaultKind,
  faultKinds,
  type FaultParameters,
  type KindSettings,
  parseFaultConfig,
  type ReplacingKind,
  replacingKinds,
  type RouteFaults
} from "./FaultConfig.js"

/**
 * What to do to one request. `kind` is the replacing fault, if any; `latencyMs` the extra delay,
 * if latency was drawn. `status` is the 5xx status of a `serverError`, `retryAfterSeconds` the
 * header of a `rateLimited`, `bytes` the minimum body size of a `huge`.
 *
 * A 503 server error without latency, for instance, is
 * `{ kind: "serverError", latencyMs: undefined, status: 503, retryAfterSeconds: 1, bytes: 0 }`.
 */
export interface FaultDecision {
  readonly kind: ReplacingKind | undefined
  readonly latencyMs: number | undefined
  readonly status: number
  readonly retryAfterSeconds: number
  readonly bytes: number
}

/** The configuration resolved for one operation, ready for a cheap per-request decision. */
interface Plan {
  readonly active: boolean
  /** Cumulative probabilities of `replacingKinds`, in that order. */
  readonly cumulative: ReadonlyArray<number>
  readonly latencyProbability: number
  readonly latencyMs: number
  readonly jitterMs: number
  readonly retryAfterSeconds: number
  readonly statuses: ReadonlyArray<number>
  readonly hugeBytes: number
}

type Settings = Readonly<Record<string, unknown>>

const settingsOf = (config: FaultConfig, kind: FaultKind): Settings | undefined => config[kind] as Settings | undefined

/** A route's override of a kind merged over the global settings. */
const effective = (config: FaultConfig, route: RouteFaults | undefined, kind: FaultKind): Settings | undefined => {
  const global = settingsOf(config, kind)
  const local = route?.[kind]
  if (local === undefined) return global
  if (typeof local === "number") return { ...global, probability: local }
  return { ...global, ...(local as Settings) }
}

const num = (settings: Settings | undefined, key: string, fallback: number): number => {
  const value = settings?.[key]
  return typeof value === "number" ? value : fallback
}

const planOf = (config: FaultConfig, route: RouteFaults | undefined): Plan => {
  const cumulative: Array<number> = []
  let sum = 0
  for (const kind of replacingKinds) {
    sum += num(effective(config, route, kind), "probability", 0)
    cumulative.push(sum)
  }
  const latency = effective(config, route, "latency")
  const latencyProbability = num(latency, "probability", 0)
  const statuses = effective(config, route, "serverError")?.["statuses"]
  return {
    active: sum > 0 || latencyProbability > 0,
    cumulative,
    latencyProbability,
    latencyMs: num(latency, "ms", 0),
    jitterMs: num(latency, "jitterMs", 0),
    retryAfterSeconds: num(effective(config, route, "rateLimited"), "retryAfterSeconds", 1),
    statuses: Array.isArray(statuses) && statuses.length > 0 ? statuses as ReadonlyArray<number> : [500, 502, 503],
    hugeBytes: num(effective(config, route, "huge"), "bytes", defaultHugeBytes)
  }
}

/**
 * The fault injector: holds the configuration and decides, per request, which fault to inject.
 * The random stream is `new Random(seed).fork("faults")`; it is not rewound when the
 * configuration changes.
 *
 * With `new Faults("42", { serverError: { probability: 1, statuses: [503] } })`,
 * `decide("getBlock")?.status` is 503; after `set({})`, `decide("getBlock")` is `undefined`.
 */
export class Faults {
  private readonly random: Random
  private config: FaultConfig = {}
  private global: Plan = planOf({}, undefined)
  private plans: Readonly<Record<OperationId, Plan>> = this.plansOf({})

  /** Throws when `config` is not valid (see {@link parseFaultConfig}). */
  constructor(seed: string, config: FaultConfig = {}) {
    this.random = new Random(seed).fork("faults")
    this.set(config)
  }

  /** The configuration in effect, normalised (a copy: changing it changes nothing). */
  get(): FaultConfig {
    return structuredClone(this.config)
  }

  /** Replaces the configuration; throws an `Error` naming the bad field when it is not valid. */
  set(config: FaultConfig): void {
    const problem = this.setFromJson(config)
    if (problem !== undefined) throw new Error(problem)
  }

  /** Replaces the configuration from JSON; returns the error message when it is not valid. */
  setFromJson(json: unknown): string | undefined {
    const parsed = parseFaultConfig(json)
    if (typeof parsed === "string") return parsed
    this.config = parsed
    this.global = planOf(parsed, undefined)
    this.plans = this.plansOf(parsed)
    return undefined
  }

  /**
   * Decides the faults of the next request, for an operation (`undefined`: a request that
   * matched none, which gets the global settings). `undefined` when no fault was drawn.
   */
  decide(operation: OperationId | undefined): FaultDecision | undefined {
    const random = this.random
    const pickKind = random.next()
    const pickLatency = random.next()
    const pickJitter = random.next()
    const pickParameter = random.next()
    const plan = operation === undefined ? this.global : this.plans[operation]
    if (!plan.active) return undefined
    let kind: ReplacingKind | undefined
    const cumulative = plan.cumulative
    for (let i = 0; i < cumulative.length; i++) {
      if (pickKind < cumulative[i]!) {
        kind = replacingKinds[i]
        break
      }
    }
    const latencyMs = pickLatency < plan.latencyProbability ? plan.latencyMs + pickJitter * plan.jitterMs : undefined
    if (kind === undefined && latencyMs === undefined) return undefined
    return {
      kind,
      latencyMs,
      status: kind === "serverError" ? plan.statuses[Math.floor(pickParameter * plan.statuses.length)]! : kind === "rateLimited" ? 429 : 200,
      retryAfterSeconds: plan.retryAfterSeconds,
      bytes: kind === "huge" ? plan.hugeBytes : 0
    }
  }

  private plansOf(config: FaultConfig): Record<OperationId, Plan> {
    const global = planOf(config, undefined)
    const plans = {} as Record<OperationId, Plan>
    for (const id of operationIds) {
      const route = config.routes?.[id]
      plans[id] = route === undefined ? global : planOf(config, route)
    }
    return plans
  }
}
