/**
 * The transport's metrics, in the Effect metric registry (what `PrometheusMetrics` and OTLP
 * export): every answer by operation and HTTP status (`chainquery_requests_total`), the compute
 * units the answered 2xx requests cost by their operation's default weight
 * (`chainquery_compute_units_total`), and the 429s (`chainquery_rate_limited_total`). The
 * attributed counters are made once per operation and status, so counting costs one update.
 *
 * @internal
 */
import { ComputeUnits } from "@chainquery/schema"
import { Effect, Metric } from "effect"

const requests = Metric.counter("chainquery_requests_total", { description: "Requests answered by the service, by operation and HTTP status", incremental: true })
const units = Metric.counter("chainquery_compute_units_total", { description: "Compute units of the 2xx answers, by operation (default weights)", incremental: true })
const rateLimited = Metric.counter("chainquery_rate_limited_total", { description: "429 answers, by operation", incremental: true })

const weights: Readonly<Record<string, number>> = ComputeUnits.defaultWeights

interface Counters {
  readonly requests: Metric.Metric<number, unknown>
  readonly units: Metric.Metric<number, unknown>
  readonly rateLimited: Metric.Metric<number, unknown>
}

const byAnswer = new Map<string, Counters>()

const countersOf = (operation: string, status: number): Counters => {
  const key = `${operation} ${status}`
  const known = byAnswer.get(key)
  if (known !== undefined) return known
  const made: Counters = {
    requests: Metric.withAttributes(requests, { operation, status: String(status) }),
    units: Metric.withAttributes(units, { operation }),
    rateLimited: Metric.withAttributes(rateLimited, { operation })
  }
  byAnswer.set(key, made)
  return made
}

/** Counts one answer of `operation` with `status`. */
export const countAnswer = (operation: string, status: number): Effect.Effect<void> => {
  const counters = countersOf(operation, status)
  if (status >= 200 && status < 300) return Effect.andThen(Metric.update(counters.requests, 1), Metric.update(counters.units, weights[operation] ?? 1))
  if (status === 429) return Effect.andThen(Metric.update(counters.requests, 1), Metric.update(counters.rateLimited, 1))
  return Metric.update(counters.requests, 1)
}
