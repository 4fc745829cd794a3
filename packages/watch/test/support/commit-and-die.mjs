// A child process for the state store's crash tests. It loads the store from the TypeScript
// sources (Node strips the types; `.js` imports are resolved to the `.ts` files next to them),
// opens the state file given as argv[2] and then, by mode (argv[3]):
//   once: commits one batch, reports it on stdout, and kills itself with SIGKILL;
//   loop: commits batch after batch (checkpoint position = sequence, one event id per batch),
//         reporting each sequence on stdout, until the parent kills it with SIGKILL.
// An ExperimentalWarning "probe" is emitted first: it must reach stderr, the SQLite one must not.
import { writeSync } from "node:fs"
import { registerHooks } from "node:module"

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context)
    } catch (error) {
      if (specifier.startsWith(".") && specifier.endsWith(".js")) return nextResolve(`${specifier.slice(0, -3)}.ts`, context)
      throw error
    }
  }
})

const [path, mode] = process.argv.slice(2)
const { Effect } = await import("effect")
const { StateStore } = await import(new URL("../../src/index.ts", import.meta.url).href)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const wallet = { family: "evm", chain: "0x1", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }
const aptos = { family: "aptos", network: "mainnet", address: `0x${"0".repeat(63)}1` }
const hash = (n) => `0x${n.toString(16).padStart(64, "0")}`

process.emitWarning("probe warning", "ExperimentalWarning")
await sleep(20)

const batch = (n) => ({
  checkpoints: [
    { wallet, position: BigInt(n), hash: hash(n) },
    { wallet: aptos, position: BigInt(n) * 1000n, hash: null }
  ],
  blocks: [{ chain: "0x1", number: BigInt(n), hash: hash(n) }],
  eventIds: [`event-${n}-a`, `event-${n}-b`]
})

const program = Effect.gen(function*() {
  const store = yield* StateStore.StateStore
  if (mode === "once") {
    const last = yield* store.commit(batch(41))
    writeSync(1, `${JSON.stringify({ sequence: last.sequence })}\n`)
    yield* Effect.promise(() => sleep(50))
    process.kill(process.pid, "SIGKILL")
    return yield* Effect.never
  }
  for (let n = 1; ; n++) {
    const last = yield* store.commit(batch(n))
    writeSync(1, `${last.sequence}\n`)
    if (n % 50 === 0) yield* Effect.yieldNow
  }
})

await Effect.runPromise(program.pipe(Effect.provide(StateStore.layer(path))))
