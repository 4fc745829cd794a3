/**
 * Simulator throughput: requests per second for 100-record A2 pages at concurrency 16, against a
 * bare node:http server sending a pre-serialised body of the same size, measured in one run, each
 * server in its own process. Goal: ratio >= 0.5.
 */
import { fileURLToPath } from "node:url"
import http from "node:http"
import { fetchOnce, median, startProcess, throughput } from "./support.ts"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const key = "bench-key"
const sim = await startProcess([bin, "--port", "0", "--seed", "bench", "--api-key", key, "--no-indexing-lag", "--history", "200"])
const sample = await (await fetch(`${sim.url}/__sim/sample?chain=0x89`)).json() as { wallets: Array<string> }
const wallet = sample.wallets[0]!
const url = `${sim.url}/api/v2.2/${wallet}/nft/transfers?chain=polygon&limit=100`
const headers = { "x-api-key": key }
const agent = new http.Agent({ keepAlive: true })
const bytes = await fetchOnce(url, agent, headers)
agent.destroy()
const page = await (await fetch(url, { headers })).json() as { result: Array<unknown> }
if (page.result.length !== 100) throw new Error(`the benchmark wallet has only ${page.result.length} transfers`)

const bareScript = `
const http = require("node:http")
const body = Buffer.from(JSON.stringify({ pad: "x".repeat(${bytes} - 10) }).slice(0, ${bytes}))
http.createServer({ keepAlive: true }, (req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": body.length })
  res.end(body)
}).listen(0, "127.0.0.1", function () { console.log("listening on http://127.0.0.1:" + this.address().port) })`
const bare = await startProcess(["-e", bareScript])

const concurrency = 16
const rounds = 5
const simRates: Array<number> = []
const bareRates: Array<number> = []
await throughput(url, headers, concurrency, 500)
await throughput(bare.url, {}, concurrency, 500)
for (let round = 0; round < rounds; round++) {
  simRates.push(await throughput(url, headers, concurrency, 1500))
  bareRates.push(await throughput(bare.url, {}, concurrency, 1500))
}
sim.child.kill()
bare.child.kill()

const ratio = median(simRates) / median(bareRates)
console.log(`simulator: A2 pages of 100 records (${(bytes / 1024).toFixed(1)} KiB), concurrency ${concurrency}`)
console.log(`  bare node:http, same body      ${median(bareRates).toFixed(0)} req/s (median of ${rounds} rounds)`)
console.log(`  simulator                      ${median(simRates).toFixed(0)} req/s`)
console.log(`  ratio                          ${ratio.toFixed(2)} (goal >= 0.5: ${ratio >= 0.5 ? "met" : "NOT met"})`)
