/**
 * The sending side, for the tests: batches as the service writes them, signed the Standard
 * Webhooks way with node:crypto (independently of the kit's own code).
 */
import { createHmac } from "node:crypto"

/** The base64 of the test secret (the watcher's test vectors use it too). */
export const encodedSecret = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
export const secret = `whsec_${encodedSecret}`
/** Another secret of 24 bytes. */
export const otherSecret = "whsec_c2Vjb25kIHNlY3JldCBvZiAyNCBieXRlcw=="
/** The time of every test, unix seconds. */
export const now = 1_700_000_000
export const streamId = "str_0mwxp89sc8710d9595292"

/** `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>` under `secret` (default the test secret). */
export const sign = (options: { readonly id: string; readonly timestamp: number | string; readonly body: string | Uint8Array; readonly secret?: string }): string => {
  const key = Buffer.from((options.secret ?? secret).replace(/^whsec_/, ""), "base64")
  const hmac = createHmac("sha256", key).update(`${options.id}.${options.timestamp}.`)
  return `v1,${hmac.update(options.body).digest("base64")}`
}

/** A range of EVM blocks, as the body writes it. */
export const evm = (chain: string, fromBlock: number | string, toBlock: number | string) => ({ chain, fromBlock: String(fromBlock), toBlock: String(toBlock) })
/** A range of Aptos versions, as the body writes it. */
export const aptos = (network: string, fromVersion: number | string, toVersion: number | string) => ({
  network,
  fromVersion: String(fromVersion),
  toVersion: String(toVersion)
})

/** The fields of a batch's body, all optional here. */
export interface BatchFields {
  readonly streamId?: string
  readonly deliveryId?: string
  readonly sequence?: number
  readonly replay?: boolean
  readonly heartbeat?: boolean
  readonly replaces?: ReadonlyArray<unknown>
  readonly coverage?: ReadonlyArray<unknown>
  readonly wallets?: ReadonlyArray<unknown>
  readonly events?: ReadonlyArray<unknown>
  readonly [extra: string]: unknown
}

/** The JSON body of batch `sequence` (delivery `msg_<sequence>` of the test stream unless given). */
export const body = (fields: BatchFields = {}): string => {
  const sequence = fields.sequence ?? 1
  return JSON.stringify({
    streamId,
    deliveryId: `msg_${sequence}`,
    sequence,
    replay: false,
    heartbeat: false,
    replaces: [],
    coverage: [],
    wallets: [],
    events: [{ id: `ev_${sequence}`, kind: "nft.received", tokenId: "7" }],
    ...fields
  })
}

/** The `deliveryId` of a JSON body, if it has one. */
const deliveryIdOf = (text: string | Uint8Array): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(typeof text === "string" ? text : Buffer.from(text).toString("utf8"))
    return typeof parsed === "object" && parsed !== null && "deliveryId" in parsed && typeof parsed.deliveryId === "string" ? parsed.deliveryId : undefined
  } catch {
    return undefined
  }
}

/** A signed request: the three headers and the body, at `timestamp` (default `now`). */
export const request = (
  text: string | Uint8Array,
  options: { readonly id?: string; readonly timestamp?: number | string; readonly secret?: string } = {}
): { readonly headers: Record<string, string>; readonly body: string | Uint8Array } => {
  const id = options.id ?? deliveryIdOf(text) ?? "msg_1"
  const timestamp = options.timestamp ?? now
  return {
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": sign({ id, timestamp, body: text, ...(options.secret === undefined ? {} : { secret: options.secret }) })
    },
    body: text
  }
}

/** A signed request carrying batch `fields` (see {@link body}). */
export const batchRequest = (fields: BatchFields = {}, options: { readonly timestamp?: number; readonly secret?: string } = {}) =>
  request(body(fields), options)
