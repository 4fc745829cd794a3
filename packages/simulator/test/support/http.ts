/**
 * A tiny HTTP client for the simulator tests: real requests over 127.0.0.1 with fetch, answers
 * as status + parsed JSON (or the raw text when it is not JSON).
 */
import { Effect } from "effect"

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: any
}

export const get = (url: string, options: { readonly key?: string | undefined; readonly headers?: Record<string, string> } = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, {
      headers: { accept: "application/json", ...(options.key === undefined ? {} : { "x-api-key": options.key }), ...options.headers }
    })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

export const post = (url: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, json: await response.json() as any }
  })
