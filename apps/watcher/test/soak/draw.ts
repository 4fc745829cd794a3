/**
 * A soak scenario drawn from one numeric seed (mulberry32, never `Math.random`): the simulated
 * world, the chains and how many wallets of each, the strategy, the confirmations, the faults and
 * a timeline of steps (advance the world, maybe act, wait). The same seed draws the same scenario.
 *
 * The wallets themselves are picked from the world when the scenario is played (`wallets.ts`),
 * with a generator derived from the same seed, so they repeat too.
 *
 * The draw keeps away from what the watcher cannot know, so that what goes wrong is a bug: a
 * reorganisation is at most 6 blocks deep (far inside the 256 blocks the watcher keeps a record
 * of); a backfill starts below the safe head. Reorganisations and `kill -9` come at any step,
 * also one right after the other (a batch written, the process killed before it settled, its
 * blocks replaced before the restart: the write-ahead batch lets the restart retract it). Most
 * worlds index at once (`indexing: false`); in some the newest block often lags.
 */
import type { Simulator } from "@chainquery/simulator"
import { seeded } from "../e2e/support/e2e.js"

/** The simulator's busy EVM chains. */
export const busyChains = ["0x1", "0x89", "0x2105"] as const
export type EvmChain = (typeof busyChains)[number]
/** An EVM chain, or Aptos mainnet. */
export type Place = EvmChain | "aptos"

export const strategies = ["auto", "block-scan", "per-wallet"] as const
export type Strategy = (typeof strategies)[number]

/** The deepest reorganisation drawn (the blocks the watcher reads again each cycle without confirmations). */
export const deepestReorg = 6

/** How many wallets of one place, and how many of them among the busiest. */
export interface WalletDraw {
  readonly place: Place
  readonly count: number
  readonly busy: number
}

export type Action =
  /** Replaces the last `depth` blocks of `chain`. */
  | { readonly _tag: "reorg"; readonly chain: EvmChain; readonly depth: number }
  /** SIGKILL after `delayMs`, or once `chunks` more chunks of output arrived; then a restart. */
  | { readonly _tag: "kill"; readonly delayMs: number; readonly chunks: number }
  /**
   * New wallets of `place`: SIGTERM, a `--backfill FROM --once` run with only them, a restart with
   * all. EVM: FROM is `back` blocks below the head (inclusive); Aptos: the version of the
   * `back`-th newest transfer of the world.
   */
  | { readonly _tag: "add"; readonly place: Place; readonly count: number; readonly busy: number; readonly back: number }

/** One step of the timeline: advance `advance` blocks, then the action if any, then wait `waitMs`. */
export interface Step {
  readonly advance: number
  readonly action: Action | undefined
  readonly waitMs: number
}

export interface Scenario {
  readonly seed: number
  /** `lag`: the probability that a chain's newest block is not indexed yet (0: `indexing: false`). */
  readonly world: { readonly seed: number; readonly wallets: number; readonly history: number; readonly lag: number }
  readonly chains: ReadonlyArray<EvmChain>
  readonly aptos: boolean
  readonly wallets: ReadonlyArray<WalletDraw>
  readonly strategy: Strategy
  readonly confirmations: number
  readonly faults: Simulator.FaultConfig
  readonly steps: ReadonlyArray<Step>
  /** Blocks advanced at the end, faults off, before the ground truth is taken. */
  readonly settle: number
}

type Random = ReturnType<typeof seeded>

/** Scenario `index`'s seed in a soak seeded with `base`: a positive 31-bit integer. */
export const scenarioSeed = (base: number, index: number): number => {
  const random = seeded((base ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0)
  random.next()
  return 1 + Math.floor(random.next() * 0x7ffffffe)
}

const pick = <A>(random: Random, items: ReadonlyArray<A>): A => items[random.int(0, items.length - 1)]!

/** A random subset of `items` of size `min..max`, in the items' order. */
const subset = <A>(random: Random, items: ReadonlyArray<A>, min: number, max: number): Array<A> => {
  const shuffled = items.map((item) => ({ item, key: random.next() })).toSorted((a, b) => a.key - b.key)
  const chosen = new Set(shuffled.slice(0, random.int(min, max)).map((entry) => entry.item))
  return items.filter((item) => chosen.has(item))
}

/**
 * Up to 25% of the requests answered with a fault, split at random among the kinds the clients
 * are meant to survive (no `huge`; `stalled` costs the 2 s request timeout, so it stays rare);
 * latency on top. One scenario in six has none.
 */
const drawFaults = (random: Random): Simulator.FaultConfig => {
  if (random.next() < 1 / 6) return {}
  const total = 0.03 + random.next() * 0.22
  const kinds = ["rateLimited", "serverError", "reset", "truncated", "malformed", "stalled"] as const
  const weights = kinds.map(() => (random.next() < 0.25 ? 0 : random.next()))
  const sum = weights.reduce((a, b) => a + b, 0) || 1
  const share = (i: number) => Math.round((total * weights[i]!) / sum * 1000) / 1000
  return {
    rateLimited: { probability: share(0), retryAfterSeconds: 0 },
    serverError: { probability: share(1), statuses: [500, 502, 503, 504] },
    reset: { probability: share(2) },
    truncated: { probability: share(3) },
    malformed: { probability: share(4) },
    stalled: { probability: Math.min(share(5), 0.01) },
    latency: { probability: random.next() * 0.5, ms: random.int(0, 10), jitterMs: random.int(0, 40) }
  }
}

/** The timeline, with the limits of the file comment applied as it is drawn. */
const drawSteps = (random: Random, places: ReadonlyArray<Place>, chains: ReadonlyArray<EvmChain>, confirmations: number, count: number) => {
  const steps: Array<Step> = []
  for (let index = 0; index < count; index++) {
    const advance = random.int(1, 3)
    const roll = random.next()
    let action: Action | undefined
    if (roll < 0.16) {
      const chain = pick(random, chains)
      const depth = random.int(1, deepestReorg)
      action = { _tag: "reorg", chain, depth }
    } else if (roll < 0.26) {
      action = { _tag: "kill", delayMs: random.next() < 0.5 ? random.int(0, 800) : 0, chunks: random.int(1, 2) }
    } else if (roll < 0.32) {
      const place = pick(random, places)
      // Below the safe head: `confirmations` deep, and one more for a newest block not indexed yet.
      const back = place === "aptos" ? random.int(1, 150) : random.int(confirmations + 2, 50)
      const added = random.int(1, 3)
      action = { _tag: "add", place, count: added, busy: random.int(0, added), back }
    }
    steps.push({ advance, action, waitMs: random.int(150, 400) })
  }
  return steps
}

/** Draws the scenario of `seed`; `steps` bounds the timeline's length (default 25..40). */
export const draw = (seed: number, steps: readonly [number, number] = [25, 40]): Scenario => {
  const random = seeded(seed)
  const chains = subset(random, busyChains, 1, 3)
  const aptos = random.next() < 0.75
  const places: Array<Place> = [...chains, ...(aptos ? ["aptos" as const] : [])]
  // Without confirmations the watcher follows reorganisations: the most to go wrong.
  const confirmations = random.next() < 0.4 ? 0 : random.int(1, 3)
  const wallets = places.map((place) => {
    const count = random.next() < 0.3 ? random.int(1, 3) : random.int(1, 30)
    return { place, count, busy: random.int(Math.min(1, count), count) }
  })
  return {
    seed,
    world: {
      seed: random.int(1, 1_000_000),
      wallets: random.int(40, 160),
      history: random.int(55, 80),
      lag: random.next() < 0.3 ? random.int(2, 5) / 10 : 0
    },
    chains,
    aptos,
    wallets,
    strategy: pick(random, strategies),
    confirmations,
    faults: drawFaults(random),
    steps: drawSteps(random, places, chains, confirmations, random.int(steps[0], steps[1])),
    settle: random.int(2, 4)
  }
}
