/**
 * The packed simulator's `bin`, started on a free port for the consumer check's programs (copied
 * beside them into the scratch project).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

/** The data API key the simulator takes. */
export const apiKey = "consumer-check-key"
const bin = fileURLToPath(new URL("../node_modules/.bin/chainquery-simulator", import.meta.url))

/** Where the simulator listens: its base URL and its two families'. */
export interface Urls {
  readonly url: string
  readonly evm: string
  readonly ledgerMainnet: string
}

/** The packed bin, started; `urls` settles once it printed where it listens. */
export const startSimulator = (): { readonly child: ChildProcess; readonly urls: Promise<Urls> } => {
  const child = spawn(bin, ["--port", "0", "--seed", "7", "--api-key", apiKey, "--no-indexing-lag", "--history", "30"], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const urls = new Promise<Urls>((resolve, reject) => {
    const found = new Map<string, string>()
    const timer = setTimeout(() => reject(new Error("the simulator printed no URLs within 60 s")), 60_000)
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`the simulator exited with ${code} before it listened`)))
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^(listening on|family A:|family B mainnet:) (\S+)$/.exec(line)
      if (match !== null) found.set(match[1]!, match[2]!)
      if (found.size === 3) {
        clearTimeout(timer)
        resolve({ url: found.get("listening on")!, evm: found.get("family A:")!, ledgerMainnet: found.get("family B mainnet:")! })
      }
    })
  })
  return { child, urls }
}
