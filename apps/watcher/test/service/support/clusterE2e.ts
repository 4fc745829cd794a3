/**
 * Support for the tests of `serve --cluster`: runners on one database, each at its own runner
 * address on 127.0.0.1 (kept across restarts, as a machine's would be), stopped and started again
 * by index; the shard locks they hold, read from PostgreSQL; and which runner read which block,
 * from the simulator's request log (each runner names itself in its `User-Agent`).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { createServer } from "node:net"
import type { Sim } from "../../e2e/support/e2e.js"
import { ServiceMain } from "@chainquery/watch-service"
import { serveArgs, type Service, startService } from "./serveE2e.js"

/**
 * `n` distinct TCP ports free on 127.0.0.1, below Linux's ephemeral range (32768 and up), so that
 * no port another test's `listen(0)` or connection takes meanwhile can be one of them: a runner
 * started again after a kill must find its port free.
 */
export const freePorts = async (n: number): Promise<Array<number>> => {
  const ports: Array<number> = []
  // Where to start looking: spread by process, so that test files running side by side rarely meet.
  let candidate = 20_000 + (process.pid % 1_000) * 12
  while (ports.length < n) {
    if (candidate >= 32_768) throw new Error("no free port under 32768")
    const port = candidate++
    const server = createServer()
    const free = await new Promise<boolean>((resolve) => server.once("error", () => resolve(false)).listen(port, "127.0.0.1", () => resolve(true)))
    if (free) {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      ports.push(port)
    }
  }
  return ports
}

/** The lock settings of the tests' runners: a runner that vanished is replaced within seconds. */
export const lockSettings = { expirationMs: 6_000, refreshMs: 1_000 } as const

/** Runners of one cluster, by index. */
export class Cluster {
  readonly runners: Array<Service | undefined>

  constructor(
    readonly databaseUrl: string,
    readonly sim: Sim,
    readonly ports: ReadonlyArray<number>,
    readonly flags: ReadonlyArray<string>
  ) {
    this.runners = ports.map(() => undefined)
  }

  /** The address runner `index` advertises. */
  address(index: number): string {
    return `127.0.0.1:${this.ports[index]}`
  }

  /** Starts runner `index`; resolves once its API listens. */
  async start(index: number): Promise<Service> {
    const service = await startService(
      this.databaseUrl,
      serveArgs(this.sim, [
        ...this.flags,
        "--cluster",
        "--runner-address",
        this.address(index),
        "--shard-lock-expiration",
        `${lockSettings.expirationMs}ms`,
        "--shard-lock-refresh",
        `${lockSettings.refreshMs}ms`
      ])
    )
    this.runners[index] = service
    return service
  }

  /** Stops runner `index` with `signal`; its exit. */
  async stop(index: number, signal: NodeJS.Signals) {
    const service = this.runners[index]
    if (service === undefined) throw new Error(`runner ${index} is not running`)
    this.runners[index] = undefined
    return service.process.stop(signal)
  }

  /** A runner that runs (the first). */
  any(): Service {
    const service = this.runners.find((runner) => runner !== undefined)
    if (service === undefined) throw new Error("no runner is running")
    return service
  }

  /** The index of the runner a `User-Agent` names by `tag` (see `ServiceMain.runnerTag`). */
  indexOf(tag: string): number {
    return this.ports.findIndex((port) => ServiceMain.runnerTag({ host: "127.0.0.1", port }) === tag)
  }

  /** Kills every runner still running. */
  async killAll(): Promise<void> {
    await Promise.all(this.runners.map((runner, index) => runner === undefined ? undefined : this.stop(index, "SIGKILL")))
  }
}

/** The advisory-lock namespace of the cluster's shard locks (the FNV-1a hash `effect/cluster` keeps stable), as PostgreSQL shows it. */
const shardLockNamespace = (): number => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode("effect-cluster:cluster")) hash = Math.imul(hash ^ byte, 0x01000193)
  return hash >>> 0
}

/** The shard locks held in this database (advisory locks are the server's), by the PostgreSQL session holding them (one per runner). */
export const shardHolders = (databaseUrl: string): Promise<Array<number>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const rows = yield* sql<{ held: number }>`
        SELECT count(*)::int AS held FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = ${shardLockNamespace()}::oid
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        GROUP BY pid`
      return rows.map((row) => row.held)
    }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })))
  )

/** How many shard locks the runners hold (every shard held: `shardsPerGroup`, 300). */
export const heldShards = async (databaseUrl: string): Promise<number> => (await shardHolders(databaseUrl)).reduce((a, b) => a + b, 0)

/**
 * Waits until every shard is held, spread over `runners` runners, the same way three looks in a
 * row a second apart: the cluster settled (a rebalance still under way can pass one look).
 */
export const settled = async (databaseUrl: string, runners: number, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let same = 0
  let last = ""
  while (same < 3) {
    const holders = (await shardHolders(databaseUrl)).toSorted((a, b) => a - b)
    const complete = holders.length === runners && holders.reduce((a, b) => a + b, 0) === allShards
    same = complete && JSON.stringify(holders) === last ? same + 1 : complete ? 1 : 0
    last = JSON.stringify(holders)
    if (same >= 3) return
    if (Date.now() > deadline) throw new Error(`the cluster did not settle within ${timeoutMs} ms: shards held ${last}`)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
}

/** The shards of the cluster. */
export const allShards = 300

/** A block read the simulator served: when, the block (its number, or its hash), and the runner that asked (its tag). */
export interface Listing {
  readonly at: number
  readonly block: string
  readonly runner: string
  /** A header (`getBlock`) rather than a listing. */
  readonly header?: boolean
}

/**
 * The eth block reads in the simulator's request log, each with the runner that asked: listings
 * (`getNFTTransfersByBlock`, by number or by hash) and headers (`getBlock`, which a scan linking
 * blocks by parent hashes asks first).
 */
export const listings = async (sim: Sim): Promise<Array<Listing>> => {
  const log = await Effect.runPromise(sim.requests)
  return log.flatMap((request) => {
    if (request.operation !== "getNFTTransfersByBlock" && request.operation !== "getBlock") return []
    if (!request.path.includes("chain=eth") && !request.path.includes("chain=0x1")) return []
    const block = /\/block\/(\d+|0x[0-9a-fA-F]+)(?:\/|\?|$)/.exec(request.path)?.[1]
    const runner = /\(runner ([0-9a-f]{12})\)/.exec(request.userAgent ?? "")?.[1]
    if (block === undefined || runner === undefined) throw new Error(`a block listing without its block or runner: ${request.path} ${request.userAgent}`)
    return [{ at: request.at, block, runner, header: request.operation === "getBlock" }]
  })
}

/**
 * The turns of the scan: the listings cut where the runner asking changes, each with its runner
 * and its first and last request. Two runners scanning at once would make many short turns.
 */
export const turnsOf = (all: ReadonlyArray<Listing>): Array<{ readonly runner: string; readonly from: number; readonly to: number; readonly requests: number }> => {
  const turns: Array<{ runner: string; from: number; to: number; requests: number }> = []
  for (const listing of all) {
    const last = turns.at(-1)
    if (last !== undefined && last.runner === listing.runner) {
      last.to = listing.at
      last.requests++
    } else turns.push({ runner: listing.runner, from: listing.at, to: listing.at, requests: 1 })
  }
  return turns
}

/**
 * The blocks listed by two different runners within `windowMs` of each other while both were
 * scanning: the first one listed again within `windowMs` after the second. What two scans of one
 * chain at once show; a handover does not (the runner that gave the scan up lists nothing after,
 * though the next one may list again, soon after, a block it had not committed).
 */
export const listedTwice = (all: ReadonlyArray<Listing>, windowMs: number): Array<{ readonly block: string; readonly runners: [string, string]; readonly apartMs: number }> => {
  const byBlock = new Map<string, Array<Listing>>()
  for (const listing of all) (byBlock.get(listing.block) ?? byBlock.set(listing.block, []).get(listing.block)!).push(listing)
  const listsAgain = (runner: string, from: number) => all.some((listing) => listing.runner === runner && listing.at > from && listing.at <= from + windowMs)
  const found: Array<{ block: string; runners: [string, string]; apartMs: number }> = []
  for (const [block, list] of byBlock) {
    for (let i = 1; i < list.length; i++) {
      const [a, b] = [list[i - 1]!, list[i]!]
      if (a.runner !== b.runner && b.at - a.at < windowMs && listsAgain(a.runner, b.at)) {
        found.push({ block, runners: [a.runner, b.runner], apartMs: b.at - a.at })
      }
    }
  }
  return found
}

/**
 * The milliseconds from `since` (when a runner was stopped) until every shard is held again,
 * polling every 100 ms. After a `kill -9` the dead runner's locks must first be seen released
 * (`seeRelease`): PostgreSQL frees them once it sees the connection closed. After a graceful stop,
 * call it once the process exited: the runner gave its shards up before.
 */
export const takenOverAfter = async (
  databaseUrl: string,
  since: number,
  options: { readonly timeoutMs: number; readonly seeRelease: boolean }
): Promise<number> => {
  const deadline = since + options.timeoutMs
  let released = !options.seeRelease
  while (Date.now() < deadline) {
    const held = await heldShards(databaseUrl)
    if (held < allShards) released = true
    else if (released) return Date.now() - since
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const held = await heldShards(databaseUrl)
  throw new Error(`the shards were not ${released ? "all held again" : "seen released"} within ${options.timeoutMs} ms (${held} of ${allShards} held)`)
}
