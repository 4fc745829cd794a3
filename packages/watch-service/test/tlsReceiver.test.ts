/**
 * WebhookSender over https: a receiver whose certificate is not valid (here self-signed) is not
 * sent to: the outcome is `Unreachable`, naming the TLS error, and the request never reaches it.
 * A real `node:https` receiver on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as WebhookSender from "../src/delivery/WebhookSender.js"

/** A self-signed certificate for 127.0.0.1 (made once with openssl, valid for 100 years), and its key. */
const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSlglHk+p3Ibnk8Ch
kbzJLuA/xt5kWx7L3oEcTRtaF0uhRANCAAT4opyJm5Bg1SXMe6It5U0UUsSSl/fU
uhFWhpd5BOQwaNlO/HdwFJf9oddhP1oaOjYiKxHQY71t4WULjfTeuWNJ
-----END PRIVATE KEY-----`
const cert = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUQxwqDDhmK/n93QKB+HbKKrjxR3gwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyODEyMjQ0M1oYDzIxMjYxMTA0
MTIyNDQzWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAT4opyJm5Bg1SXMe6It5U0UUsSSl/fUuhFWhpd5BOQwaNlO/HdwFJf9
oddhP1oaOjYiKxHQY71t4WULjfTeuWNJo2QwYjAdBgNVHQ4EFgQUPM+x9pSs253G
sjDxyJ7LETKdBtkwHwYDVR0jBBgwFoAUPM+x9pSs253GsjDxyJ7LETKdBtkwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IHWKoBGj35yxbRExIOIfk1G/MdKgkl36GBHsV7/Jn6ktAiEA+5OF6koQYDZPDM8s
kYnFDlxMi7vq/thJJ2d/93f3Gp4=
-----END CERTIFICATE-----`

/** An https receiver on 127.0.0.1 with that certificate, answering 200; the requests it got. */
const selfSigned = Effect.acquireRelease(
  Effect.callback<{ readonly server: https.Server; readonly port: number; readonly requests: Array<string> }>((resume) => {
    const requests: Array<string> = []
    const server = https.createServer({ key, cert }, (request, response) => {
      requests.push(request.url ?? "/")
      response.writeHead(200).end("ok")
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, port: (server.address() as AddressInfo).port, requests })))
  }),
  ({ server }) => Effect.callback<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })
)

describe("WebhookSender.post over https", () => {
  it.live("a certificate that is not valid: Unreachable, naming the TLS error; nothing reaches the receiver", () =>
    Effect.gen(function*() {
      const { port, requests } = yield* selfSigned
      const outcome = yield* WebhookSender.post({
        url: new URL(`https://127.0.0.1:${port}/hook`),
        headers: { "webhook-id": "msg_1" },
        body: "{}",
        timeout: "20 seconds",
        allowPrivate: true
      })
      assert.deepStrictEqual(outcome, WebhookSender.SendOutcome.Unreachable({ message: "the TLS certificate is not valid (DEPTH_ZERO_SELF_SIGNED_CERT)" }))
      assert.deepStrictEqual(requests, [])
    }))
})
