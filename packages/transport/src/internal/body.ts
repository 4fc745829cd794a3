/**
 * How a body is read under the cap, shared by both ways of sending: what its headers allow
 * (refused at once when `Content-Length` is past the cap; read whole when it has a length and is
 * not compressed, HTTP framing stopping it at that length; counted chunk by chunk otherwise), the
 * counting, and the errors of reading it.
 */
import { Errors } from "@chainquery/schema"

/** How to read a body: not at all (too large), whole, or counted as it arrives. */
export type Plan = "tooLarge" | "whole" | "counted"

/** The plan for a body with these `Content-Length` and `Content-Encoding` headers. */
export const plan = (contentLength: string | undefined | null, contentEncoding: string | undefined | null, maxBytes: number): Plan => {
  const declared = contentLength != null && /^\s*\d+\s*$/.test(contentLength) ? Number(contentLength) : undefined
  if (declared !== undefined && declared > maxBytes) return "tooLarge"
  return declared !== undefined && contentEncoding == null ? "whole" : "counted"
}

/** A body past the cap. */
export const tooLarge = (maxBytes: number) =>
  new Errors.Transport({ reason: "BodyTooLarge", message: `the response body is larger than ${maxBytes} bytes` })

/** Reading a body failed on the way. */
export const readFailed = (error: { readonly message: string }) =>
  new Errors.Transport({ reason: "Network", message: `reading the response failed: ${error.message}` })

/** Collects a body's chunks under the cap: `add` answers false once the body is past it. */
export const collector = (maxBytes: number) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  return {
    add: (chunk: Uint8Array): boolean => {
      size += chunk.length
      if (size > maxBytes) return false
      chunks.push(chunk)
      return true
    },
    /** What was added, as UTF-8 text. */
    text: (): string => new TextDecoder().decode(Buffer.concat(chunks, size))
  }
}
