/**
 * @chainquery/pagination: cursor pagination as composable Effect Streams, for both envelope kinds
 * of the service: pages or items, prefetch, resume from a saved cursor, parallel reads where the
 * service allows them. The clients build their `stream*` methods on it.
 *
 * @since 0.1.0
 */
export * as Envelope from "./Envelope.js"
export * as PageFailed from "./PageFailed.js"
export * as Paginate from "./Paginate.js"
export * as Parallel from "./Parallel.js"
