/**
 * The version of chainquery's packages, sent in the `User-Agent` header. A test keeps it equal to
 * `package.json`'s version.
 *
 * @example
 * ```ts
 * import { Version } from "@chainquery/transport"
 *
 * Version.version // "0.0.0"
 * ```
 * @since 0.1.0
 */
export const version = "0.0.0"
