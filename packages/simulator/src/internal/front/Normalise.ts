/**
 * Request URL normalisation at the front door: which family a request belongs to (and, for
 * family B, which network, stripping the `/aptos/<network>` prefix), and the array-valued query
 * forms the real service accepts (`x[]=a`, `x[0]=a`, percent-encoded brackets, plain repeats)
 * rewritten to the one form the handlers read: repeated plain keys.
 *
 * @internal
 */

/**
 * Who a request is for: family A (`/api/v2.2/...`), family B (`/aptos/<network>/...`), the
 * simulator's control API (`/__sim/...`), or none of them.
 *
 * {@link normaliseUrl} tells which.
 */
export type Family = "A" | "B" | "control" | "unknown"

/**
 * A family B network.
 *
 * It comes from the `/aptos/<network>` prefix of the path.
 */
export type Network = "mainnet" | "testnet"

/**
 * A normalised request target. `url` is `pathname` plus the normalised query (with its `?`);
 * `network` is present exactly when `family` is `"B"`.
 *
 * `/aptos/mainnet/collections?limit=1`, for instance, is
 * `{ family: "B", network: "mainnet", url: "/collections?limit=1", pathname: "/collections" }`.
 */
export interface Normalised {
  readonly family: Family
  readonly network?: Network
  readonly url: string
  readonly pathname: string
}

/** `name[]`, `name[12]`, with literal or percent-encoded brackets; the name has no bracket. */
const bracketKey = /^([^[\]]+?)(?:\[|%5[bB])(\d*)(?:\]|%5[dD])$/
const encodedBracket = /%5[bBdD]/

interface Indexed {
  readonly slot: number
  readonly index: number
  readonly value: string
}

/**
 * Rewrites a raw query string (without `?`) so that every array form becomes repeated plain
 * keys, keeping every parameter where it was: `x[]=a&x[]=b`, `x%5B%5D=a&x%5B%5D=b`,
 * `x[0]=a&x[1]=b` and `x=a&x=b` all become `x=a&x=b`. Indexed keys of one name are put in
 * index order among the places they occupy (`x[1]=b&y=1&x[0]=a` becomes `x=a&y=1&x=b`).
 * Values are kept byte for byte (still percent-encoded); keys that are not arrays (`x[a]=1`,
 * `x[0][1]=2`) are left alone. A query with no bracket at all is returned as it is.
 *
 * So `contract_addresses%5B%5D=0xa&contract_addresses%5B%5D=0xb&chain=eth` becomes
 * `contract_addresses=0xa&contract_addresses=0xb&chain=eth`, and
 * `owner_addresses[1]=0xb&owner_addresses[0]=0xa` becomes
 * `owner_addresses=0xa&owner_addresses=0xb`.
 */
export const normaliseQuery = (query: string): string => {
  if (query.indexOf("[") === -1 && query.indexOf("%5") === -1) return query
  const parts = query.split("&")
  let changed = false
  let indexed: Map<string, Array<Indexed>> | undefined
  for (let slot = 0; slot < parts.length; slot++) {
    const part = parts[slot]!
    const eq = part.indexOf("=")
    const key = eq === -1 ? part : part.slice(0, eq)
    const match = bracketKey.exec(key)
    if (match === null) continue
    const name = match[1]!
    if (encodedBracket.test(name)) continue
    const rest = eq === -1 ? "" : part.slice(eq)
    parts[slot] = name + rest
    changed = true
    const digits = match[2]!
    if (digits !== "") {
      indexed ??= new Map()
      let group = indexed.get(name)
      if (group === undefined) indexed.set(name, group = [])
      group.push({ slot, index: Number(digits), value: rest })
    }
  }
  if (!changed) return query
  if (indexed !== undefined) {
    for (const [name, group] of indexed) {
      if (group.length < 2) continue
      const slots = group.map((entry) => entry.slot)
      const ordered = group.toSorted((a, b) => a.index - b.index)
      for (let i = 0; i < slots.length; i++) parts[slots[i]!] = name + ordered[i]!.value
    }
  }
  return parts.join("&")
}

const prefixA = "/api/v2.2"
const prefixControl = "/__sim"
const prefixMainnet = "/aptos/mainnet"
const prefixTestnet = "/aptos/testnet"

/** True when `path` is `prefix` itself or lies under it. */
const under = (path: string, prefix: string): boolean =>
  path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/")

/**
 * Classifies and normalises a request target (`req.url`: origin-form `/path?query`, or
 * absolute-form `http://host/path?query`). Family B's `/aptos/mainnet` or `/aptos/testnet`
 * prefix is removed from `pathname` and `url` and returned as `network`; family A and control
 * paths are kept whole. The query is normalised with {@link normaliseQuery}.
 *
 * `/aptos/testnet/wallets/nfts?limit=5&owner_addresses[0]=0x1`, for instance, gives family `"B"`,
 * network `"testnet"`, pathname `/wallets/nfts` and url
 * `/wallets/nfts?limit=5&owner_addresses=0x1`; `/api/v2.2/block/1?chain=eth` gives family `"A"`
 * with pathname and url unchanged.
 */
export const normaliseUrl = (raw: string): Normalised => {
  let target = raw
  if (target[0] !== "/") {
    if (!/^https?:\/\//i.test(target)) return { family: "unknown", url: raw, pathname: raw }
    try {
      const parsed = new URL(target)
      target = parsed.pathname + parsed.search
    } catch {
      return { family: "unknown", url: raw, pathname: raw }
    }
  }
  const q = target.indexOf("?")
  const path = q === -1 ? target : target.slice(0, q)
  const query = q === -1 ? undefined : target.slice(q + 1)
  const search = query === undefined ? "" : "?" + normaliseQuery(query)
  if (under(path, prefixA)) return { family: "A", url: path + search, pathname: path }
  if (under(path, prefixMainnet) || under(path, prefixTestnet)) {
    const network: Network = path.startsWith(prefixMainnet) ? "mainnet" : "testnet"
    const prefix = network === "mainnet" ? prefixMainnet : prefixTestnet
    const pathname = path.length === prefix.length ? "/" : path.slice(prefix.length)
    return { family: "B", network, url: pathname + search, pathname }
  }
  if (under(path, prefixControl)) return { family: "control", url: path + search, pathname: path }
  return { family: "unknown", url: path + search, pathname: path }
}
