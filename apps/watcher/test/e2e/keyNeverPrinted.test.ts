/**
 * "Never printed" (README, `--api-key`), at the command line: the built CLI, given a key by flag
 * or by `MORALIS_API_KEY`, never prints its text on stdout or stderr, wherever it would have a
 * reason to. Against a simulator that accepts the key (a run with every log level on), one that
 * refuses it (401), one whose every answer is a 500, and bad command lines: a mistyped key flag
 * or a key passed without its flag are echoed by the command line library ("Unknown subcommand
 * ..."), and the executable replaces them before they are printed.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { type Exited, runCli, type RunningSim, startSimulator, tempDir, walletFlags } from "./support/e2e.js"

const key = "cq+live/9d2e4f6a8b0c1e3d5f7a9b1c3d5e7f9a=="
const forms = [key, encodeURIComponent(key), key.slice(0, 8), key.slice(-12)]
const dir = tempDir("key-never-printed")

let healthy: RunningSim | undefined
let failing: RunningSim | undefined

interface Case {
  readonly name: string
  readonly args: () => ReadonlyArray<string>
  readonly env?: Record<string, string>
  readonly code: number
  /** What shows the situation happened (the service's refusal, the echoed argument, ...). */
  readonly shows: RegExp
}

const wallet = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const state = (name: string) => ["--state", join(dir.path, `${name}.db`)]
/** A state file and base URLs where nothing listens: a command line that parsed by mistake reaches no real service. */
const offline = (name: string) => [...state(name), "--evm-base-url", "http://127.0.0.1:9", "--ledger-base-url", "http://127.0.0.1:9"]
const once = (sim: RunningSim | undefined, name: string) => [
  ...walletFlags(busiestEvm(sim!.sim, "0x1", 2)),
  "--once",
  "--format",
  "json",
  "--watch",
  "transfers",
  "--request-timeout",
  "5s",
  "--evm-base-url",
  sim!.sim.evmUrl,
  ...state(name)
]

const firstBlock = () => String(healthy!.sim.world.evm.chain("0x1").profile.firstBlock)

const cases: ReadonlyArray<Case> = [
  {
    name: "a run with a backfill and every log level on, the key accepted",
    args: () => [...once(healthy, "accepted"), "--backfill", firstBlock(), "--log-level", "all", "--api-key", key],
    code: 0,
    shows: /"kind":"nft\.(received|sent)"[\s\S]*watching 2 wallet\(s\)/
  },
  {
    name: "the key from MORALIS_API_KEY, with every log level on",
    args: () => [...once(healthy, "from-env"), "--log-level", "all"],
    env: { MORALIS_API_KEY: key },
    code: 0,
    shows: /watching 2 wallet\(s\)/
  },
  {
    name: "a wrong key: the service answers 401",
    args: () => [...once(healthy, "wrong"), "--log-level", "all", "--api-key", `${key.slice(0, -2)}x=`],
    code: 2,
    shows: /refused the API key \(HTTP 401/
  },
  {
    name: "every answer a 500",
    args: () => [...once(failing, "500"), "--log-level", "all", "--api-key", key],
    code: 1,
    shows: /500|Internal Server Error/
  },
  {
    name: "a mistyped key flag (--apikey KEY): the flag is named, its value is not",
    args: () => ["--wallet", wallet, "--apikey", key, "--once", ...offline("typo")],
    code: 2,
    shows: /unknown flag --apikey \(did you mean --api-key\?\)/
  },
  {
    name: "a key flag of another name (--token KEY)",
    args: () => ["--wallet", wallet, "--token", key, "--once", ...offline("token")],
    code: 2,
    shows: /unknown flag --token/
  },
  {
    name: "the key from MORALIS_API_KEY passed without its flag",
    args: () => ["--wallet", wallet, "--once", key, ...offline("stray")],
    env: { MORALIS_API_KEY: key },
    code: 2,
    shows: /Unknown subcommand "<redacted>"/
  },
  {
    name: "a mistyped key flag with its value inline (--apikey=KEY)",
    args: () => ["--wallet", wallet, `--apikey=${key}`, "--once", ...offline("inline")],
    code: 2,
    shows: /unknown flag --apikey/
  },
  {
    name: "an unknown flag next to --api-key",
    args: () => ["--wallet", wallet, "--api-key", key, "--frobnicate", "--once", ...offline("unknown")],
    code: 2,
    shows: /unknown flag --frobnicate/
  },
  {
    name: "a bad flag value next to --api-key",
    args: () => ["--wallet", wallet, "--api-key", key, "--interval", "soon", "--once", ...offline("interval")],
    code: 2,
    shows: /--interval/
  },
  {
    name: "--api-key given twice",
    args: () => ["--wallet", wallet, "--api-key", key, "--api-key", key, "--once", ...offline("twice")],
    code: 2,
    shows: /--api-key/
  },
  {
    name: "--help with --api-key",
    args: () => ["--api-key", key, ...offline("help"), "--help"],
    code: 0,
    shows: /--api-key KEY/
  }
]

/** Every case run once, three at a time (each is a Node start-up; the machine has 2 cores). */
const results = new Map<string, Exited>()

beforeAll(async () => {
  healthy = await startSimulator({ seed: 94, indexing: false, chains: ["0x1"], wallets: 20, history: 20, apiKey: key })
  failing = await startSimulator({
    seed: 95,
    indexing: false,
    chains: ["0x1"],
    wallets: 20,
    history: 20,
    apiKey: key,
    faults: { serverError: { probability: 1, statuses: [500] } }
  })
  await Effect.runPromise(healthy.sim.advance(3))
  const queue = [...cases]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.set(next.name, await runCli(next.args(), next.env))
  }
  await Promise.all([worker(), worker(), worker()])
}, 240_000)

afterAll(async () => {
  await Promise.all([healthy?.close(), failing?.close()])
  dir.remove()
})

describe("the API key is never printed by the CLI", () => {
  for (const { code, name, shows } of cases) {
    it(name, () => {
      const result = results.get(name)
      expect(result).toBeDefined()
      expect(result!.code, result!.stderr).toBe(code)
      expect(`${result!.stdout}\n${result!.stderr}`).toMatch(shows)
      for (const form of forms) {
        expect(result!.stdout, "stdout").not.toContain(form)
        expect(result!.stderr, "stderr").not.toContain(form)
      }
    })
  }
})
