#!/usr/bin/env node
/**
 * The simulator's command line:
 *
 *   chainquery-simulator --port 0 --seed 42 --block-time 2s --api-key KEY
 *
 * Prints `listening on http://127.0.0.1:PORT`, then the base URL of family A and of family B
 * (mainnet, testnet), and serves until interrupted (Ctrl-C or SIGTERM stop it cleanly).
 *
 * @since 0.1.0
 */
import { Chain, DurationInput } from "@chainquery/schema"
import { Cause, Duration, Effect, Result, Schema } from "effect"
import { parseArgs } from "node:util"
import * as Simulator from "./Simulator.js"

const usage = `Usage: chainquery-simulator [options]

A local, wire-faithful implementation of the chainquery service (family A: EVM API v2.2,
family B: Aptos API, mainnet and testnet) over a deterministic world.

Options:
  --port N             port on the host; 0 picks a free one (default 0)
  --host HOST          address to listen on (default 127.0.0.1)
  --seed S             the world's seed: same seed, same world (default 42)
  --block-time T       advance every T, at least 1ms (e.g. 2s, 500ms, 1m, 1h, 1.5 seconds; units
                       ms, s, m, h; a bare number is seconds); default: only via POST /__sim/advance
  --api-key KEY        the key requests must carry in X-API-Key or Authorization: Bearer
                       (default ${Simulator.defaultApiKey})
  --history N          blocks of history per chain before serving (default 60)
  --wallets N          wallets shared by the EVM chains (default 400)
  --activity X         multiplies NFT activity per block (default 1)
  --chains LIST        chains with NFT activity, e.g. eth,polygon (default: all 25)
  --no-indexing-lag    every block indexed at once, every collection SYNCED
  --faults JSON        faults to inject, e.g. '{"serverError":{"probability":0.1}}'
  --rate-limit N       compute units per second per key (default: unlimited)
  --request-log N      keep the latest N API requests for GET /__sim/requests (default 0: none)
  --wire FLAVOUR       the answers' JSON types: spec (service.md's, the default) or real (those of
                       the real service's captured responses; the README lists the fields)
  --help               this text

Control API: GET /__sim/head, GET /__sim/events?chain=0x1&fromBlock=N, POST /__sim/advance?blocks=N,
POST /__sim/reorg?chain=0x1&depth=K, GET|PUT /__sim/faults, GET /__sim/stats, GET /__sim/requests
(see the README).

Example:
  chainquery-simulator --port 4000 --seed 7 --block-time 2s`

const fail = (message: string): never => {
  process.stderr.write(`chainquery-simulator: ${message}\n\n${usage}\n`)
  process.exit(2)
}

const number = (name: string, text: string | undefined, min = 0): number | undefined => {
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isFinite(value) || value < min) fail(`--${name} must be a number >= ${min}, got ${JSON.stringify(text)}`)
  return value
}

const integer = (name: string, text: string | undefined, min = 0): number | undefined => {
  const value = number(name, text, min)
  if (value !== undefined && !Number.isSafeInteger(value)) fail(`--${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`)
  return value
}

/**
 * `--block-time`: the shared duration grammar of `@chainquery/schema` (`DurationInput`), at least
 * 1ms (a world advancing continuously would only grow); a bad value exits 2 with the usage.
 */
const blockTime = (text: string | undefined): Duration.Duration | undefined => {
  if (text === undefined) return undefined
  const result = DurationInput.validate("--block-time", text, { minimum: Duration.millis(1) })
  return Result.isFailure(result) ? fail(DurationInput.flagMessage(result.failure)) : result.success
}

const parsed = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: "string" },
        host: { type: "string" },
        seed: { type: "string" },
        "block-time": { type: "string" },
        "api-key": { type: "string" },
        history: { type: "string" },
        wallets: { type: "string" },
        activity: { type: "string" },
        "no-indexing-lag": { type: "boolean" },
        chains: { type: "string" },
        faults: { type: "string" },
        "rate-limit": { type: "string" },
        "request-log": { type: "string" },
        wire: { type: "string" },
        help: { type: "boolean" }
      },
      allowPositionals: false
    }).values
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
})()

if (parsed.help === true) {
  process.stdout.write(`${usage}\n`)
  process.exit(0)
}

const faults = (() => {
  if (parsed.faults === undefined) return undefined
  try {
    return JSON.parse(parsed.faults) as Simulator.Options["faults"]
  } catch {
    return fail("--faults must be JSON")
  }
})()

const chains = parsed.chains === undefined ? undefined : parsed.chains.split(",").map((name) => {
  const id = Schema.decodeUnknownOption(Chain.Chain)(name)
  return id._tag === "Some" ? id.value : fail(`--chains: unknown chain ${JSON.stringify(name)}`)
})

const rateLimit = number("rate-limit", parsed["rate-limit"], 1)

const wire = ((text: string | undefined): Simulator.WireFlavour | undefined => {
  if (text === undefined) return undefined
  if (text === "spec" || text === "real") return text
  return fail(`--wire must be spec or real, got ${JSON.stringify(text)}`)
})(parsed.wire)

const options: Simulator.Options = {
  port: number("port", parsed.port),
  host: parsed.host,
  seed: parsed.seed,
  blockTime: blockTime(parsed["block-time"]),
  apiKey: parsed["api-key"],
  history: number("history", parsed.history, 1),
  wallets: number("wallets", parsed.wallets, 2),
  activityScale: number("activity", parsed.activity),
  indexing: parsed["no-indexing-lag"] === true ? false : undefined,
  chains,
  faults,
  rateLimit: rateLimit === undefined ? undefined : { unitsPerSecond: rateLimit },
  requestLog: integer("request-log", parsed["request-log"]),
  wire
}

// Ctrl-C and SIGTERM interrupt the program: the server closes its connections and the process
// exits 0 once every finalizer has run.
const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  process.stdout.write(
    `listening on ${sim.url}\nfamily A: ${sim.evmUrl}\nfamily B mainnet: ${sim.ledgerUrl.mainnet}\nfamily B testnet: ${sim.ledgerUrl.testnet}\n`
  )
  return yield* Effect.never
}).pipe(Effect.provide(Simulator.layer(options)))

const fiber = Effect.runFork(program)
const stop = () => fiber.interruptUnsafe()
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
fiber.addObserver((exit) => {
  if (exit._tag === "Failure" && !Cause.hasInterruptsOnly(exit.cause)) {
    process.stderr.write(`chainquery-simulator: ${Cause.pretty(exit.cause)}\n`)
    process.exit(1)
  }
  process.exit(0)
})
