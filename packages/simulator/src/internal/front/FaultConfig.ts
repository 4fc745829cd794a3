/**
 * The fault injection configuration: a JSON-friendly type (the control API receives it as JSON,
 * the CLI as `--faults`) and its validating parser. No Effect: plain checks that name the field
 * at fault.
 *
 * @internal
 */
import { type OperationId, resolveOperationId } from "./Routes.js"

/**
 * Every fault kind. `latency` delays a response and combines with any other kind; the others
 * each replace or alter the response, at most one per request (see {@link replacingKinds}).
 *
 * It is {@link replacingKinds} with `latency` in front.
 */
export const faultKinds = ["latency", "rateLimited", "serverError", "reset", "truncated", "malformed", "stalled", "huge"] as const

/**
 * One fault kind.
 *
 * Any member of {@link faultKinds}, e.g. `"reset"`.
 */
export type FaultKind = (typeof faultKinds)[number]

/**
 * The kinds that replace or alter the response, in the order their probabilities are stacked
 * when one is drawn per request (their probabilities must add up to at most 1).
 *
 * `rateLimited` comes first, so it takes the lowest slice of the draw.
 */
export const replacingKinds = ["rateLimited", "serverError", "reset", "truncated", "malformed", "stalled", "huge"] as const

/**
 * A kind that replaces or alters the response.
 *
 * Any fault kind but `latency`.
 */
export type ReplacingKind = (typeof replacingKinds)[number]

/**
 * The parameters of each kind, besides its `probability` (0..1). Defaults: `latency.ms` 0,
 * `latency.jitterMs` 0 (a uniform extra delay in `[0, jitterMs]`), `rateLimited.retryAfterSeconds`
 * 1, `serverError.statuses` `[500, 502, 503]` (one picked per fault), `huge.bytes` 32 MiB (the
 * body is valid JSON strictly larger than this).
 *
 * Every parameter is optional: `{ statuses: [503] }` for `serverError`, for instance, makes every
 * server error a 503.
 */
export interface FaultParameters {
  readonly latency: { readonly ms?: number; readonly jitterMs?: number }
  readonly rateLimited: { readonly retryAfterSeconds?: number }
  readonly serverError: { readonly statuses?: ReadonlyArray<number> }
  readonly reset: object
  readonly truncated: object
  readonly malformed: object
  readonly stalled: object
  readonly huge: { readonly bytes?: number }
}

/**
 * The settings of one kind: its probability and its parameters.
 *
 * `KindSettings<"latency">` of `{ probability: 0.5, ms: 200, jitterMs: 50 }`, for instance, delays
 * half the requests by 200 to 250 ms.
 */
export type KindSettings<K extends FaultKind> = { readonly probability: number } & FaultParameters[K]

/**
 * Per-operation overrides: a kind given here replaces the global one for that operation, either
 * as a bare probability (parameters come from the global settings) or as full settings (missing
 * parameters come from the global settings, then the defaults).
 *
 * `{ serverError: 1, latency: { probability: 1, ms: 50 } }`, for instance, makes every request of
 * the operation a server error (with the global `statuses`) delayed by 50 ms (plus the global
 * `jitterMs`).
 */
export type RouteFaults = { readonly [K in FaultKind]?: number | KindSettings<K> }

/**
 * The whole fault configuration, JSON-friendly. A kind absent means probability 0. Routes are
 * keyed by operation id (`getBlock`); the parser also accepts short labels (`A6`).
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const config: Simulator.FaultConfig = {
 *   serverError: { probability: 0.1, statuses: [502, 503] },
 *   latency: { probability: 1, ms: 20, jitterMs: 10 },
 *   routes: { getBlock: { serverError: 0 } }
 * }
 * ```
 */
export type FaultConfig = { readonly [K in FaultKind]?: KindSettings<K> } & {
  readonly routes?: { readonly [Id in OperationId]?: RouteFaults }
}

/**
 * The default `huge.bytes`: 32 MiB (33,554,432 bytes).
 */
export const defaultHugeBytes = 32 * 1024 * 1024

const maxHugeBytes = 4 * 1024 * 1024 * 1024
const kindSet: ReadonlySet<string> = new Set(faultKinds)
const allowedParameters: Readonly<Record<FaultKind, ReadonlyArray<string>>> = {
  latency: ["ms", "jitterMs"],
  rateLimited: ["retryAfterSeconds"],
  serverError: ["statuses"],
  reset: [],
  truncated: [],
  malformed: [],
  stalled: [],
  huge: ["bytes"]
}

class Invalid extends Error {}

const fail = (message: string): never => {
  throw new Invalid(message)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const finiteAtLeast = (value: unknown, min: number, path: string, integer: boolean, max = Number.MAX_SAFE_INTEGER) => {
  if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    return fail(`${path} must be ${integer ? "an integer" : "a number"}, got ${JSON.stringify(value) ?? String(value)}`)
  }
  if (value < min || value > max) return fail(`${path} must be between ${min} and ${max}, got ${value}`)
  return value
}

const probabilityOf = (value: unknown, path: string): number => finiteAtLeast(value, 0, path, false, 1)

/** Parses one kind's settings (object or bare probability) into a fresh object. */
const parseKind = (kind: FaultKind, value: unknown, path: string): Record<string, unknown> => {
  if (typeof value === "number") return { probability: probabilityOf(value, path) }
  if (!isRecord(value)) return fail(`${path} must be an object like {"probability":0.1} or a probability`)
  const out: Record<string, unknown> = { probability: probabilityOf(value["probability"], `${path}.probability`) }
  for (const key of Object.keys(value)) {
    if (key !== "probability" && !allowedParameters[kind].includes(key)) {
      const allowed = ["probability", ...allowedParameters[kind]].join(", ")
      fail(`${path}.${key} is not a setting of ${kind} (allowed: ${allowed})`)
    }
  }
  const v = value
  if (v["ms"] !== undefined) out["ms"] = finiteAtLeast(v["ms"], 0, `${path}.ms`, false, 3_600_000)
  if (v["jitterMs"] !== undefined) out["jitterMs"] = finiteAtLeast(v["jitterMs"], 0, `${path}.jitterMs`, false, 3_600_000)
  if (v["retryAfterSeconds"] !== undefined) {
    out["retryAfterSeconds"] = finiteAtLeast(v["retryAfterSeconds"], 0, `${path}.retryAfterSeconds`, true, 86_400)
  }
  if (v["bytes"] !== undefined) out["bytes"] = finiteAtLeast(v["bytes"], 1, `${path}.bytes`, true, maxHugeBytes)
  if (v["statuses"] !== undefined) {
    const statuses = v["statuses"]
    if (!Array.isArray(statuses) || statuses.length === 0) fail(`${path}.statuses must be a non-empty array of 5xx statuses`)
    out["statuses"] = (statuses as Array<unknown>).map((s, i) => finiteAtLeast(s, 500, `${path}.statuses[${i}]`, true, 599))
  }
  return out
}

/** Parses a map of kinds (the top level or a route), rejecting unknown kinds. */
const parseKinds = (value: Record<string, unknown>, path: string, skip: string | undefined) => {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [key, settings] of Object.entries(value)) {
    if (key === skip) continue
    if (!kindSet.has(key)) fail(`${path}${key} is not a fault kind (kinds: ${faultKinds.join(", ")}${skip === undefined ? "" : ", routes"})`)
    out[key] = parseKind(key as FaultKind, settings, `${path}${key}`)
  }
  return out
}

const probabilityIn = (settings: Record<string, unknown> | undefined): number =>
  settings === undefined ? 0 : settings["probability"] as number

const checkSum = (
  global: Record<string, Record<string, unknown>>,
  route: Record<string, Record<string, unknown>>,
  where: string
) => {
  let sum = 0
  for (const kind of replacingKinds) sum += probabilityIn(route[kind] ?? global[kind])
  if (sum > 1 + 1e-9) {
    fail(`${where}: the probabilities of ${replacingKinds.join(", ")} add up to ${sum}; at most one is drawn per request, so they must add up to at most 1`)
  }
}

/**
 * Validates a fault configuration received as JSON. Returns the configuration, normalised (a
 * bare probability becomes `{ probability }`, route labels like `A6` become operation ids), or
 * an error message naming the bad field (`faults.serverError.statuses[0] must be between 500
 * and 599, got 404`). Unknown fields are errors, so typos do not pass silently.
 *
 * `parseFaultConfig({ reset: 0.1, routes: { A6: { reset: 0 } } })`, for instance, returns
 * `{ reset: { probability: 0.1 }, routes: { getBlock: { reset: { probability: 0 } } } }`, and the
 * typo `parseFaultConfig({ reste: 0.1 })` returns `"faults.reste is not a fault kind (...)"`.
 */
export const parseFaultConfig = (json: unknown): FaultConfig | string => {
  try {
    if (!isRecord(json)) return fail("faults must be a JSON object, e.g. {\"serverError\":{\"probability\":0.1}}")
    const global = parseKinds(json, "faults.", "routes")
    checkSum(global, {}, "faults")
    const out: Record<string, unknown> = { ...global }
    const routes = json["routes"]
    if (routes !== undefined) {
      if (!isRecord(routes)) fail("faults.routes must be an object keyed by operation id")
      const parsedRoutes: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(routes as Record<string, unknown>)) {
        const id = resolveOperationId(key)
        if (id === undefined) fail(`faults.routes.${key} is not an operation id (e.g. getBlock or A6)`)
        if (!isRecord(value)) fail(`faults.routes.${key} must be an object of fault kinds`)
        const parsed = parseKinds(value as Record<string, unknown>, `faults.routes.${key}.`, undefined)
        checkSum(global, parsed, `faults.routes.${key}`)
        parsedRoutes[id as string] = parsed
      }
      out["routes"] = parsedRoutes
    }
    return out as FaultConfig
  } catch (error) {
    if (error instanceof Invalid) return error.message
    throw error
  }
}
