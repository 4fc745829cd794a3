/** A stream's or a delivery's state as a badge: its word, and a colour that is never the only sign. */
import { h } from "../dom.js"

/** `active`, `paused`, `error`; `pending`, `delivered`, `failed`. */
export const statusBadge = (status: string) => h("span", { class: `badge badge-${status}` }, status)

/** What a stream is called: its description, or its id when it has none. */
export const nameOf = (stream: { readonly id: string; readonly description: string }): string =>
  stream.description === "" ? stream.id : stream.description
