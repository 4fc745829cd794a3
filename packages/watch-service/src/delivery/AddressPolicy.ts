/**
 * Which webhook URLs the service may call: a guard against server-side request forgery, where a
 * stream's URL would make the service reach what only it can reach (its loopback, the private
 * network, the cloud metadata service at 169.254.169.254). Unless the service runs with
 * `--allow-private-webhooks`:
 *
 * - {@link checkUrl} refuses, when a stream is created or changed, a URL that is not http(s),
 *   carries credentials, names a private address, or whose name resolves to one;
 * - {@link guardedLookup} checks again each time a connection is made, since a name can resolve
 *   to something else later (DNS rebinding).
 *
 * @since 0.2.0
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { lookup as dnsLookupAll } from "node:dns/promises"
import { BlockList, isIP, type LookupFunction } from "node:net"
import { Effect, Schema } from "effect"

const privateRanges = new BlockList()
for (const [network, bits] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, with the cloud metadata service at 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, with the broadcast address 255.255.255.255
] as const) privateRanges.addSubnet(network, bits, "ipv4")
privateRanges.addSubnet("::", 96, "ipv6") // unspecified, loopback and the deprecated IPv4-compatible forms
privateRanges.addSubnet("ff00::", 8, "ipv6") // multicast
privateRanges.addSubnet("fc00::", 7, "ipv6") // unique local, with AWS's metadata service at fd00:ec2::254
privateRanges.addSubnet("fe80::", 10, "ipv6") // link-local

/**
 * Whether `ip` is an address the service must not call by default: loopback, private (RFC 1918
 * and IPv6 unique local), link-local (with the cloud metadata services), carrier-grade NAT,
 * `0.0.0.0/8`, reserved, benchmarking and multicast ranges, `::/96`. An IPv4-mapped
 * (`::ffff:127.0.0.1`) or NAT64 (`64:ff9b::a00:1`) IPv6 address is judged by its IPv4.
 * A string that is not an IP address is not one (`false`).
 *
 * @example
 * ```ts
 * import { AddressPolicy } from "@chainquery/watch-service"
 *
 * AddressPolicy.isPrivateAddress("169.254.169.254") // true
 * AddressPolicy.isPrivateAddress("::ffff:10.1.2.3") // true
 * AddressPolicy.isPrivateAddress("8.8.8.8") // false
 * ```
 * @since 0.2.0
 */
export const isPrivateAddress = (ip: string): boolean => {
  const bare = (ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip).split("%")[0]!
  const family = isIP(bare)
  if (family === 0) return false
  const translated = family === 6 ? nat64Ipv4(bare) : undefined
  if (translated !== undefined) return privateRanges.check(translated, "ipv4")
  return privateRanges.check(bare, family === 4 ? "ipv4" : "ipv6")
}

/** The 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail converted). */
const groupsOf = (ip: string): Array<number> => {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1]
  const hex = dotted === undefined
    ? ip
    : ip.slice(0, -dotted.length) + dotted.split(".").map(Number).reduce<Array<string>>((parts, byte, index) => {
      if (index % 2 === 0) parts.push(byte.toString(16).padStart(2, "0"))
      else parts[parts.length - 1] += byte.toString(16).padStart(2, "0")
      return parts
    }, []).join(":")
  const [head, tail] = hex.includes("::") ? hex.split("::") as [string, string] : [hex, undefined]
  const front = head === "" ? [] : head.split(":")
  const back = tail === undefined || tail === "" ? [] : tail.split(":")
  const middle = tail === undefined ? [] : Array.from({ length: 8 - front.length - back.length }, () => "0")
  return [...front, ...middle, ...back].map((group) => Number.parseInt(group, 16))
}

/** The IPv4 address a NAT64 address (64:ff9b::/96) reaches, `undefined` for any other address. */
const nat64Ipv4 = (ip: string): string | undefined => {
  const groups = groupsOf(ip.toLowerCase())
  if (groups.length !== 8 || groups[0] !== 0x64 || groups[1] !== 0xff9b || groups.slice(2, 6).some((group) => group !== 0)) return undefined
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".")
}

/**
 * A webhook URL the service refuses, with `reason` saying what is refused and what is valid.
 * `url` is the URL as given, without its credentials if it had any.
 *
 * @example
 * ```ts
 * import { AddressPolicy } from "@chainquery/watch-service"
 *
 * new AddressPolicy.UnsafeWebhookUrl({ url: "ftp://example.com/", reason: "the scheme ftp: is not supported (only http: and https: URLs are)" })
 * ```
 * @since 0.2.0
 */
export class UnsafeWebhookUrl extends Schema.TaggedError<UnsafeWebhookUrl>()("UnsafeWebhookUrl", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the webhook URL ${this.url} is refused: ${this.reason}`
  }
}

const allowHint = "loopback, private, link-local and cloud-metadata addresses are refused unless the service runs with --allow-private-webhooks"

/**
 * Resolves every address of a host name, like `dns.lookup(host, { all: true })` (the default of
 * {@link checkUrl}); a rejection means that the name does not resolve.
 *
 * @example
 * ```ts
 * import { AddressPolicy } from "@chainquery/watch-service"
 *
 * const fixed: AddressPolicy.Resolve = async () => [{ address: "93.184.215.14", family: 4 }]
 * ```
 * @since 0.2.0
 */
export type Resolve = (host: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>

const resolveAll: Resolve = (host) => dnsLookupAll(host, { all: true })

/** The URL without its credentials, to name it in an error. */
const withoutCredentials = (url: URL): string => {
  const copy = new URL(url.href)
  copy.username = ""
  copy.password = ""
  return copy.href
}

/**
 * Checks a webhook URL: it parses, is `http:` or `https:`, has no credentials (`user:pass@`) and,
 * unless `allowPrivate`, its host is not a private address ({@link isPrivateAddress}), not
 * `localhost`, and every address its name resolves to (`dns.lookup` with `all`, or `lookup`) is
 * public; a name that does not resolve is refused.
 *
 * @example
 * ```ts
 * import { AddressPolicy } from "@chainquery/watch-service"
 *
 * const url = AddressPolicy.checkUrl("https://hooks.example.com/chainquery", { allowPrivate: false })
 * // Effect<URL, UnsafeWebhookUrl>
 * ```
 * @since 0.2.0
 */
export const checkUrl = Effect.fnUntraced(function*(
  url: string,
  options: { readonly allowPrivate: boolean; readonly lookup?: Resolve | undefined }
): Effect.fn.Return<URL, UnsafeWebhookUrl> {
  if (!URL.canParse(url)) {
    return yield* new UnsafeWebhookUrl({ url, reason: "it is not an absolute URL (expected one such as https://example.com/webhook)" })
  }
  const parsed = new URL(url)
  const shown = withoutCredentials(parsed)
  const refuse = (reason: string) => new UnsafeWebhookUrl({ url: shown, reason })
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return yield* refuse(`the scheme ${parsed.protocol} is not supported (only http: and https: URLs are)`)
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return yield* refuse("credentials in the URL (user:password@) are refused; the receiver can check the webhook-signature header instead")
  }
  if (options.allowPrivate) return parsed
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
  if (isIP(host) !== 0) {
    if (isPrivateAddress(host)) return yield* refuse(`the host ${host} is a private address (${allowHint})`)
    return parsed
  }
  const name = host.endsWith(".") ? host.slice(0, -1) : host
  if (name === "localhost" || name.endsWith(".localhost")) {
    return yield* refuse(`the host ${host} is the local machine (${allowHint})`)
  }
  const resolve = options.lookup ?? resolveAll
  const addresses = yield* Effect.promise(() => resolve(host).catch(() => [])).pipe(
    Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.succeed([]) })
  )
  if (addresses.length === 0) {
    return yield* refuse(`the host ${host} does not resolve (a webhook URL needs a name with a public DNS record, or a public IP address)`)
  }
  if (addresses.some(({ address }) => isPrivateAddress(address))) {
    return yield* refuse(`the host ${host} resolves to a private address (${allowHint})`)
  }
  return parsed
})

/** The error of {@link guardedLookup} for a name that resolves to a private address. */
const unsafeAddress = (hostname: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`the host ${hostname} resolves to a private address (${allowHint})`), {
    code: "EUNSAFEADDRESS",
    hostname
  })

/**
 * A `lookup` for `http.request` (`net.LookupFunction`): resolves like `dns.lookup` and, unless
 * `allowPrivate`, fails with an error of code `EUNSAFEADDRESS` when any address of the name is
 * private, so that a name that resolved to a public address when its URL was checked cannot be
 * made to point at a private one when the service connects. Node skips the lookup for an IP
 * literal: check those with {@link isPrivateAddress} before connecting.
 *
 * @example
 * ```ts
 * import * as http from "node:http"
 * import { AddressPolicy } from "@chainquery/watch-service"
 *
 * http.request("http://hooks.example.com/", { method: "POST", lookup: AddressPolicy.guardedLookup(false) })
 * ```
 * @since 0.2.0
 */
export const guardedLookup = (allowPrivate: boolean): LookupFunction => (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error: NodeJS.ErrnoException | null, addresses: Array<LookupAddress>) => {
    if (error !== null) return callback(error, [])
    if (!allowPrivate && addresses.some(({ address }) => isPrivateAddress(address))) return callback(unsafeAddress(hostname), [])
    if (options.all === true) return callback(null, addresses)
    const first = addresses[0]
    if (first === undefined) {
      return callback(Object.assign(new Error(`the host ${hostname} does not resolve`), { code: "ENOTFOUND", hostname }), [])
    }
    callback(null, first.address, first.family)
  })
}
