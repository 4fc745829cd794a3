/**
 * @chainquery/transport: What the chainquery clients share: base URL, API key, timeouts, retries, rate limiting and typed errors.
 *
 * This package is laid out but not filled yet; its API arrives with its own issue.
 *
 * @since 0.1.0
 */
