/**
 * @chainquery/simulator: a wire-faithful local implementation of the chainquery service (all 14
 * operations) over a deterministic, evolving world, for tests, benchmarks, demos, and your own
 * app's tests.
 *
 * @since 0.1.0
 */
export * as Simulator from "./Simulator.js"
