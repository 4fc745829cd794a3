/**
 * Scrubbing a secret out of text that came back from a server before it goes into an error, a
 * log line or a span. A misconfigured proxy or a hostile server can echo the API key in an error
 * body; the transport passes every such string through a scrubber made from the key.
 *
 * What it catches: the key as it is, the key URL-encoded (`encodeURIComponent`), and either of
 * them cut short, as long as at least their first 8 characters are there. Each is replaced with
 * `<redacted>`. A key shorter than 8 characters (no real key is; tests and demos use them) is
 * replaced only whole and where it stands alone, not inside a longer word: the key `k` leaves
 * `block_number` as it is.
 *
 * What it does not catch: the key in another encoding (base64, hex, JSON `\u` escapes, HTML
 * entities), with its case changed, reversed or split, or a piece of it that does not start at
 * its first character. Those need a server that works at hiding the key; the common echoes
 * ("Invalid key <key>", an HTML page that prints the request's headers, a URL with the key in its
 * query) are caught.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"

/**
 * Replaces every occurrence of one secret in a text.
 *
 * @example
 * ```ts
 * import { Scrub } from "@chainquery/transport"
 *
 * const scrub: Scrub.Scrubber = Scrub.make("sk_live_0123456789")
 * scrub("Invalid key sk_live_0123456789") // "Invalid key <redacted>"
 * ```
 * @since 0.1.0
 */
export type Scrubber = (text: string) => string

/**
 * What a scrubbed secret is replaced with.
 *
 * @example
 * ```ts
 * import { Scrub } from "@chainquery/transport"
 *
 * Scrub.placeholder // "<redacted>"
 * ```
 * @since 0.1.0
 */
export const placeholder = "<redacted>"

/** The shortest leading piece of a secret that is still replaced. */
const shortestPiece = 8

const isWordChar = (code: number) =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95

/** Whether a short form found at `at` stands alone (no letter, digit or `_` on either side). */
const standsAlone = (text: string, at: number, length: number) =>
  !isWordChar(text.charCodeAt(at - 1)) && !isWordChar(text.charCodeAt(at + length))

/** Each form's head: its first `shortestPiece` characters (all of a shorter form). */
const headsOf = (forms: ReadonlyArray<string>) => forms.map((form) => form.slice(0, Math.min(form.length, shortestPiece)))

/** How many characters of `form` the text holds from `at` on. */
const matchLength = (text: string, at: number, form: string): number => {
  let length = 0
  while (length < form.length && text.charCodeAt(at + length) === form.charCodeAt(length)) length++
  return length
}

/**
 * Replaces each occurrence of any form, or of a leading piece of one, with the placeholder. Where
 * several forms start at one place (the key and its URL-encoding share a head), the longest match
 * counts; matches that overlap (a key that starts inside an earlier piece of it) are replaced as
 * one, so no tail of the key is left behind. `heads` are the forms' first `shortestPiece`
 * characters (made once per scrubber). Linear in the text: each head's next occurrence is looked
 * for again only once it has been passed.
 */
const replacePieces = (text: string, forms: ReadonlyArray<string>, heads: ReadonlyArray<string>, haystack = text): string => {
  const found = heads.map((head) => haystack.indexOf(head))
  if (found.every((at) => at === -1)) return text
  /** The first occurrence of any head at or after `from`, -1 when none is left. */
  const next = (from: number) => {
    let at = -1
    for (let i = 0; i < heads.length; i++) {
      if (found[i] !== -1 && found[i]! < from) found[i] = haystack.indexOf(heads[i]!, from)
      if (found[i] !== -1 && (at === -1 || found[i]! < at)) at = found[i]!
    }
    return at
  }
  /** Where the longest form that counts at `at` ends; `at` when none does. */
  const endOf = (at: number) => {
    let end = at
    for (const form of forms) {
      const length = matchLength(haystack, at, form)
      const counts = form.length < shortestPiece ? length === form.length && standsAlone(haystack, at, length) : length >= shortestPiece
      if (counts) end = Math.max(end, at + length)
    }
    return end
  }
  let out = ""
  let copied = 0
  let at = next(0)
  while (at !== -1) {
    let end = endOf(at)
    if (end === at) {
      at = next(at + 1)
      continue
    }
    for (let inside = next(at + 1); inside !== -1 && inside < end; inside = next(inside + 1)) end = Math.max(end, endOf(inside))
    out += text.slice(copied, at) + placeholder
    copied = end
    at = next(end)
  }
  return out + text.slice(copied)
}

/**
 * How a scrubber compares.
 *
 * @example
 * ```ts
 * import type { Scrub } from "@chainquery/transport"
 *
 * const forHostNames: Scrub.Options = { ignoreCase: true }
 * ```
 * @since 0.1.0
 */
export interface Options {
  /**
   * Also catch the secret with its case changed: for text that went through something that
   * lowercases, such as a URL's host name. Default false.
   */
  readonly ignoreCase?: boolean | undefined
}

/**
 * Makes the scrubber of one secret (see the module's comment for what it catches). An empty
 * secret scrubs nothing.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { Scrub } from "@chainquery/transport"
 *
 * const scrub = Scrub.make(Redacted.make("sk_live_0123456789"))
 * scrub("key=sk_live_01234 was refused") // "key=<redacted> was refused"
 * scrub("/?k=sk_live%2F0123") // unchanged: not a leading piece of the key in any form
 * ```
 * @since 0.1.0
 */
export const make = (secret: string | Redacted.Redacted<string>, options?: Options): Scrubber => {
  const value = Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
  if (value === "") return (text) => text
  const encoded = encodeURIComponent(value)
  const forms = encoded === value ? [value] : [value, encoded]
  const heads = headsOf(forms)
  if (options?.ignoreCase !== true) return (text) => replacePieces(text, forms, heads)
  const lowerForms = forms.map((form) => form.toLowerCase())
  const lowerHeads = headsOf(lowerForms)
  return (text) => {
    const lower = text.toLowerCase()
    // Lowercasing that changes the length (a few non-ASCII letters) would shift every position.
    return lower.length === text.length ? replacePieces(text, lowerForms, lowerHeads, lower) : replacePieces(text, forms, heads)
  }
}
