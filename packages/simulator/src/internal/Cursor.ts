/**
 * Opaque page cursors. A cursor carries what the next page needs (the snapshot the listing was
 * started at, the position reached, and a fingerprint of the query it belongs to) as base64url
 * JSON. Clients must treat it as opaque; a cursor that does not decode, or belongs to another
 * query, is a 400.
 *
 * @internal
 */

/** The state a listing resumes from. */
export interface CursorState {
  /** Fingerprint of the route and filters the cursor was issued for. */
  readonly q: string
  /** The snapshot (block number or ledger version) the listing reads at. */
  readonly s: number
  /** Position reached, listing-specific. */
  readonly p: number
  /** Number of the page this cursor leads to (the envelope's `page`). */
  readonly k?: number
  /** Secondary position (e.g. owner index within a token), listing-specific. */
  readonly w?: number
}

/** Encodes a cursor state as an opaque string. */
export const encode = (state: CursorState): string =>
  Buffer.from(JSON.stringify(state), "utf8").toString("base64url")

/** Decodes a cursor for the query `fingerprint`, or `undefined` when it is not one of ours. */
export const decode = (cursor: string, expected: string): CursorState | undefined => {
  try {
    const state = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<CursorState>
    return state.q === expected && Number.isSafeInteger(state.s) && Number.isSafeInteger(state.p) &&
        (state.k === undefined || Number.isSafeInteger(state.k)) && (state.w === undefined || Number.isSafeInteger(state.w))
      ? state as CursorState
      : undefined
  } catch {
    return undefined
  }
}

/** A stable fingerprint of a route and the parameters that shape its listing. */
export const fingerprint = (route: string, params: Record<string, unknown>): string => {
  const text = `${route}?${
    Object.keys(params).filter((key) => params[key] !== undefined).toSorted().map((key) =>
      `${key}=${JSON.stringify(params[key], (_, v) => (typeof v === "bigint" ? v.toString() : v))}`
    ).join("&")
  }`
  let hash = 2166136261
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return (hash >>> 0).toString(36)
}

/** A cursor that does not belong to the listing it was sent to: the service answers 400. */
export class InvalidCursor extends Error {
  constructor() {
    super("Invalid cursor: pass the cursor of the previous page of the same listing")
  }
}

/** Decodes a cursor, throwing {@link InvalidCursor} when it is not one of this listing's. */
export const decodeOrThrow = (cursor: string, expected: string): CursorState => {
  const state = decode(cursor, expected)
  if (state === undefined) throw new InvalidCursor()
  return state
}
