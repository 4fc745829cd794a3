/**
 * @chainquery/simulator: A wire-faithful local implementation of the chainquery service, for tests, benchmarks and demos.
 *
 * This package is laid out but not filled yet; its API arrives with its own issue.
 *
 * @since 0.1.0
 */
