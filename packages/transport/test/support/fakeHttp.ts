/**
 * A scripted HttpClient for unit tests of retry timing (with TestClock): answers each request
 * with the next scripted response and records when it was asked.
 */
import { Clock, Effect, Layer } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"

export interface Scripted {
  readonly status: number
  readonly body?: string
  readonly headers?: Record<string, string>
}

export const scriptedClient = (script: ReadonlyArray<Scripted>) => {
  const asked: Array<{ readonly at: number; readonly url: string; readonly headers: Record<string, string> }> = []
  let next = 0
  const client = HttpClient.make((request, url) =>
    Effect.map(Clock.currentTimeMillis, (at) => {
      asked.push({ at, url: url.toString(), headers: { ...request.headers } })
      const answer = script[Math.min(next++, script.length - 1)]!
      return HttpClientResponse.fromWeb(
        request,
        new Response(answer.body ?? "{}", { status: answer.status, headers: { "content-type": "application/json", ...answer.headers } })
      )
    })
  )
  return { layer: Layer.succeed(HttpClient.HttpClient, client), asked }
}
