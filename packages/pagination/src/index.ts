/**
 * @chainquery/pagination: Cursor pagination of the chainquery service as composable Effect Streams.
 *
 * This package is laid out but not filled yet; its API arrives with its own issue.
 *
 * @since 0.1.0
 */
