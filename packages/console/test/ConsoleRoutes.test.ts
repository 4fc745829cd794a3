/**
 * The console's routes over real HTTP on 127.0.0.1, over the package's built files: the page (not
 * cached) and its script and stylesheet (kept for good, their names being their content's hash),
 * gzip when it is taken and exactly the files otherwise, every answer with the headers that keep
 * the page home; an unknown file is a JSON 404; a folder without the built files is `ConsoleNotBuilt`.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { readFileSync } from "node:fs"
import { createServer, get as httpGet } from "node:http"
import { gunzipSync } from "node:zlib"
import { ConsoleAssets, ConsoleRoutes } from "../src/index.js"

/** The console served on a free port of 127.0.0.1: its base URL. */
const served = Effect.gen(function*() {
  const server = yield* Layer.build(HttpRouter.serve(ConsoleRoutes.layer, { disableListenLog: true, disableLogger: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  ))
  const { address } = Context.get(server, HttpServer.HttpServer)
  return `http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}`
})

/** A GET as it goes over the wire (`fetch` would unzip the body): the status, headers and bytes. */
const raw = (url: string, gzip: boolean) =>
  new Promise<{ readonly status: number; readonly headers: { get: (name: string) => string | null }; readonly bytes: Buffer }>((resolve, reject) => {
    httpGet(url, { headers: { "accept-encoding": gzip ? "gzip" : "identity" } }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: { get: (name) => (response.headers[name] as string | undefined) ?? null },
          bytes: Buffer.concat(chunks)
        }))
    }).on("error", reject)
  })

const manifest = JSON.parse(readFileSync(new URL("manifest.json", ConsoleAssets.folder), "utf8")) as { script: string; style: string }

describe("ConsoleRoutes", () => {
  it.live("the page and its files: gzip when taken, the files as built otherwise; the page not cached, the files kept for good", () =>
    Effect.scoped(Effect.gen(function*() {
      const url = yield* served
      const get = (path: string, gzip: boolean) => Effect.promise(() => raw(`${url}${path}`, gzip))
      for (const [path, file, cache] of [
        ["/console", "console.html", "no-store"],
        [`/console/assets/${manifest.script}`, manifest.script, "public, max-age=31536000, immutable"],
        [`/console/assets/${manifest.style}`, manifest.style, "public, max-age=31536000, immutable"]
      ] as const) {
        const built = readFileSync(new URL(file, ConsoleAssets.folder))
        const plain = yield* get(path, false)
        assert.strictEqual(plain.status, 200, path)
        assert.strictEqual(plain.headers.get("content-encoding"), null)
        assert.deepStrictEqual(plain.bytes, built, path)
        const zipped = yield* get(path, true)
        assert.strictEqual(zipped.headers.get("content-encoding"), "gzip", path)
        assert.deepStrictEqual(gunzipSync(zipped.bytes), built, path)
        for (const answer of [plain, zipped]) {
          assert.strictEqual(answer.headers.get("cache-control"), cache, path)
          assert.strictEqual(answer.headers.get("vary"), "accept-encoding")
          for (const [name, value] of Object.entries(ConsoleRoutes.securityHeaders)) assert.strictEqual(answer.headers.get(name), value, `${path} ${name}`)
        }
      }
      const page = readFileSync(new URL("console.html", ConsoleAssets.folder), "utf8")
      assert.include(page, `src="/console/assets/${manifest.script}"`)
      assert.include(page, `href="/console/assets/${manifest.style}"`)
      assert.notMatch(page, /https?:\/\//, "the page names nothing elsewhere")
      const missing = yield* get("/console/assets/console.000000000000.js", false)
      assert.strictEqual(missing.status, 404)
      assert.deepStrictEqual(JSON.parse(missing.bytes.toString("utf8")), { error: "not_found", message: "no console file console.000000000000.js" })
      assert.strictEqual((yield* get("/console/assets/manifest.json", false)).status, 404, "only the page's own files are served")
    })))

  it.effect("a folder without the built files: ConsoleNotBuilt, naming the folder", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(ConsoleAssets.load(new URL("file:///nonexistent/assets/")))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause : undefined
      assert.match(String(error), /the console's files are not in \/nonexistent\/assets\/ .*build @chainquery\/console first/)
    }))
})
