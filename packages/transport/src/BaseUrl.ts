/**
 * Which base URLs the API key may be sent to. The key travels in a header, so over plain `http:`
 * anyone on the path can read it: `http:` is accepted only to a loopback host (a local simulator
 * or proxy), or when the user says so with `allowInsecureHttp`.
 *
 * @since 0.1.0
 */
import { Errors } from "@chainquery/schema"
import { Result } from "effect"

/**
 * How a base URL is judged.
 *
 * @example
 * ```ts
 * import type { BaseUrl } from "@chainquery/transport"
 *
 * const options: BaseUrl.CheckOptions = { field: "--evm-base-url", allowInsecureHttp: false }
 * ```
 * @since 0.1.0
 */
export interface CheckOptions {
  /** Send the key over `http:` to any host (a warning is logged once). Default false. */
  readonly allowInsecureHttp?: boolean | undefined
  /** The option's name in errors. Default `baseUrl`. */
  readonly field?: string | undefined
  /** How errors name the option that allows insecure HTTP. Default `allowInsecureHttp: true`. */
  readonly insecureOption?: string | undefined
}

/**
 * Whether a URL's host name (as `URL` spells it) is loopback: `localhost`, 127.0.0.0/8 or `::1`
 * (also written as an IPv4-mapped address, `::ffff:127.x.y.z`).
 *
 * @example
 * ```ts
 * import { BaseUrl } from "@chainquery/transport"
 *
 * BaseUrl.isLoopback(new URL("http://127.0.0.2:4000").hostname) // true
 * BaseUrl.isLoopback(new URL("http://[::1]:4000").hostname) // true
 * BaseUrl.isLoopback(new URL("http://api.example.com").hostname) // false
 * ```
 * @since 0.1.0
 */
export const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" || hostname === "localhost." || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname) ||
  /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)

/** What an accepted base URL looks like, for errors. */
const accepted = (insecureOption: string) =>
  `an https: URL without query or fragment (http: only to a loopback host: localhost, 127.0.0.0/8, ::1; or with ${insecureOption})`

/** The URL as shown in an error: without user name or password. */
const shown = (url: URL) => `${url.protocol}//${url.host}${url.pathname}`

/**
 * Checks a base URL: parses it, and refuses what is not `https:` (or `http:` to a loopback host,
 * or to any host with `allowInsecureHttp`), and a query or fragment, even empty (paths are
 * appended to it). Succeeds with the URL as the parser writes it (the one requests will go to),
 * without trailing slashes, and whether it sends the key in clear text to a host that is not
 * loopback.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { BaseUrl } from "@chainquery/transport"
 *
 * Result.isSuccess(BaseUrl.check("https://deep-index.moralis.io")) // true
 * Result.isSuccess(BaseUrl.check("http://127.0.0.1:4000/")) // true
 * Result.isFailure(BaseUrl.check("http://api.example.com")) // true: InvalidConfig
 * ```
 * @since 0.1.0
 */
export const check = (
  baseUrl: string,
  options?: CheckOptions
): Result.Result<{ readonly url: string; readonly insecure: boolean }, Errors.InvalidConfig> => {
  const field = options?.field ?? "baseUrl"
  const expected = accepted(options?.insecureOption ?? "allowInsecureHttp: true")
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return Result.fail(new Errors.InvalidConfig({ field, value: JSON.stringify(baseUrl.slice(0, 200)), expected }))
  }
  const refuse = () => Result.fail(new Errors.InvalidConfig({ field, value: shown(url), expected }))
  if (url.href.includes("?") || url.href.includes("#")) return refuse()
  const pass = (insecure: boolean) => Result.succeed({ url: url.href.replace(/\/+$/, ""), insecure })
  if (url.protocol === "https:") return pass(false)
  if (url.protocol !== "http:") return refuse()
  if (isLoopback(url.hostname)) return pass(false)
  if (options?.allowInsecureHttp === true) return pass(true)
  return refuse()
}
