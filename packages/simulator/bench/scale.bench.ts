/**
 * Page cost against world size: the median latency of a 100-record A2 page (and an A3 page) in
 * a world of about 1,000,000 transfers against one of about 10,000, measured in one run. Pages
 * are read through indexes, so the ratio should stay near 1. Goal: <= 1.5.
 */
import { fileURLToPath } from "node:url"
import http from "node:http"
import { fetchOnce, median, startProcess } from "./support.ts"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const key = "bench-key"
const common = ["--port", "0", "--seed", "scale", "--api-key", key, "--no-indexing-lag", "--chains", "eth", "--activity", "10"]

const measure = async (history: number) => {
  const started = Date.now()
  const sim = await startProcess([bin, ...common, "--history", String(history)])
  const startup = Date.now() - started
  const sample = await (await fetch(`${sim.url}/__sim/sample?chain=0x1`)).json() as {
    wallets: Array<string>
    blocks: { head: number; first: number }
    transfers: number
  }
  const events = await (await fetch(`${sim.url}/__sim/events?chain=0x1&fromBlock=${sample.blocks.head}`)).json() as { events: Array<{ token_address: string; token_id: string }> }
  const token = events.events[0]!
  const urls = [
    `${sim.url}/api/v2.2/${sample.wallets[0]}/nft/transfers?chain=eth&limit=100`,
    `${sim.url}/api/v2.2/nft/${token.token_address}/${token.token_id}/transfers?chain=eth&limit=100`
  ]
  const agent = new http.Agent({ keepAlive: true })
  const headers = { "x-api-key": key }
  for (let i = 0; i < 200; i++) await fetchOnce(urls[i % 2]!, agent, headers)
  const times: Array<number> = []
  for (let i = 0; i < 600; i++) {
    const start = process.hrtime.bigint()
    await fetchOnce(urls[0]!, agent, headers)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  agent.destroy()
  sim.child.kill()
  return { latency: median(times), startup, transfers: sample.transfers }
}

const small = await measure(125)
const large = await measure(12_500)
const ratio = large.latency / small.latency
console.log("simulator: A2 page latency against world size (eth only, ~80 NFT transfers per block)")
console.log(`  ${small.transfers.toLocaleString("en").padStart(9)} transfers  ${small.latency.toFixed(2)} ms median (started in ${small.startup} ms)`)
console.log(`  ${large.transfers.toLocaleString("en").padStart(9)} transfers  ${large.latency.toFixed(2)} ms median (started in ${large.startup} ms)`)
console.log(`  ratio                        ${ratio.toFixed(2)} (goal <= 1.5: ${ratio <= 1.5 ? "met" : "NOT met"})`)
