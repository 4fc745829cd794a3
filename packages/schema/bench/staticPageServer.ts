/**
 * A bare `node:http` server, in its own process, answering with pre-serialised real-shaped pages
 * (`realShapedPages.ts`): the floor the client benchmarks compare against. Sequential pages for
 * stream benchmarks: a listing without `cursor` answers page 0, whose cursor is `p1`, and so on
 * up to page `pages - 1`, whose cursor is `null`.
 *
 *   GET /api/v2.2/<address>/nft/transfers[?cursor=pN]   A2 pages
 *   GET /wallets/nfts/transfers[?cursor=pN]             B3 pages
 *
 *   const server = await startStaticPageServer({ pages: 20 })   // { url, stop }
 */
import { spawn } from "node:child_process"
import http from "node:http"
import { fileURLToPath } from "node:url"
import { realA2Page, realB3Page } from "./realShapedPages.ts"

/** The bodies of one listing's pages, page `i` pointing at page `i + 1`. */
const chainOf = (pages: number, page: (i: number) => Record<string, unknown>, withCursor: (body: Record<string, unknown>, next: string | null) => unknown) =>
  Array.from({ length: pages }, (_, i) => Buffer.from(JSON.stringify(withCursor(page(i), i + 1 < pages ? `p${i + 1}` : null))))

const serve = (pages: number) => {
  const a2 = chainOf(pages, () => realA2Page(), (body, next) => ({ ...body, cursor: next }))
  const b3 = chainOf(pages, () => realB3Page(), (body, next) => ({ ...body, cursor: next, hasNextPage: next !== null }))
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const listing = url.pathname.endsWith("/nft/transfers") ? a2 : url.pathname === "/wallets/nfts/transfers" ? b3 : undefined
    const cursor = url.searchParams.get("cursor")
    const body = listing?.[cursor === null ? 0 : Number(cursor.slice(1))]
    if (body === undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end(`{"message":"no such page"}`)
      return
    }
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length })
    res.end(body)
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as { port: number }
    console.log(`listening on http://127.0.0.1:${address.port}`)
  })
}

/** Starts the server in a child process; `stop` kills it. */
export const startStaticPageServer = (options: { readonly pages: number }): Promise<{ readonly url: string; readonly stop: () => void }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), String(options.pages)], { stdio: ["ignore", "pipe", "inherit"] })
    process.once("exit", () => child.kill())
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (match !== null) resolve({ url: match[1]!, stop: () => child.kill() })
    })
    child.on("exit", (code) => reject(new Error(`the static page server exited with ${code} before listening`)))
  })

if (process.argv[1] === fileURLToPath(import.meta.url)) serve(Number(process.argv[2] ?? 1))
