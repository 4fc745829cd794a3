/**
 * The engine's EVM reads: every page of a block's A1 listing or of a wallet's A2 range (with
 * the indexing flags of all pages), and a galloping search for the last block that satisfies a
 * monotone probe (the head, the last indexed block) in O(log n) A1 requests.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain, NftTransfer } from "@chainquery/schema"
import { Effect, Option } from "effect"
import { fromClient as failed } from "../../EngineError.js"
import { maxOf } from "./cycleStep.js"

/** What a listing says about its blocks: they exist, their transfers are all indexed. */
export interface Listing {
  readonly exists: boolean
  readonly complete: boolean
  readonly transfers: ReadonlyArray<NftTransfer.NftTransfer>
}

const pageSize = 100

/** A flag the service may leave out: absent is read as `true`. */
const flag = (value: Option.Option<boolean>): boolean => Option.getOrElse(value, () => true)


interface Page {
  readonly cursor: Option.Option<string>
  readonly result: ReadonlyArray<NftTransfer.NftTransfer>
  readonly block_exists: Option.Option<boolean>
  readonly index_complete: Option.Option<boolean>
}

/** Walks every page of a listing (cursor loop), AND-ing the indexing flags of the pages. */
const readAll = Effect.fnUntraced(function*(
  operation: string,
  call: (cursor: string | undefined) => Effect.Effect<Page, unknown>
) {
  const transfers: Array<NftTransfer.NftTransfer> = []
  let exists = true
  let complete = true
  let cursor: string | undefined = undefined
  do {
    const page: Page = yield* Effect.mapError(call(cursor), failed(operation))
    exists = exists && flag(page.block_exists)
    complete = complete && flag(page.index_complete)
    transfers.push(...page.result)
    cursor = Option.getOrUndefined(page.cursor)
  } while (cursor !== undefined && exists && complete)
  return { exists, complete, transfers } satisfies Listing
})

/** Every transfer of one block (A1, by its number or its hash), in the block's order. */
export const readBlock = (client: EvmClient.Service, chain: Chain.ChainId, block: bigint | string) =>
  readAll("getNFTTransfersByBlock", (cursor) =>
    client.getNFTTransfersByBlock({ block, chain, limit: pageSize, order: "ASC", ...(cursor === undefined ? {} : { cursor }) }))

/**
 * Whether a block exists and is fully indexed, from one A1 page of one record, with the block's
 * hash as that record gives it (`""` when the block has no NFT transfer).
 */
export const probeBlock = (client: EvmClient.Service, chain: Chain.ChainId, block: bigint) =>
  client.getNFTTransfersByBlock({ block, chain, limit: 1 }).pipe(
    Effect.map((page) => ({
      exists: flag(page.block_exists),
      complete: flag(page.block_exists) && flag(page.index_complete),
      hash: page.result[0]?.block_hash.toLowerCase() ?? ""
    })),
    Effect.mapError(failed("getNFTTransfersByBlock"))
  )

/** A block's header as the engine needs it: its hash and its parent's, lower case. */
export interface Header {
  readonly hash: string
  readonly parent: string
}

/** A block's header (A6), `undefined` when the service has no such block. */
export const headerOf = (client: EvmClient.Service, chain: Chain.ChainId, block: bigint) =>
  client.getBlock({ block, chain }).pipe(
    Effect.map(Option.match({
      onNone: (): Header | undefined => undefined,
      onSome: (found) => ({ hash: found.hash.toLowerCase(), parent: found.parent_hash.toLowerCase() })
    })),
    Effect.mapError(failed("getBlock"))
  )

/** Every transfer of a wallet in `[fromBlock, toBlock]` (A2), oldest first. */
export const readWallet = (client: EvmClient.Service, chain: Chain.ChainId, address: string, fromBlock: bigint, toBlock: bigint) =>
  readAll("getWalletNFTTransfers", (cursor) =>
    client.getWalletNFTTransfers({
      address,
      chain,
      fromBlock,
      toBlock,
      order: "ASC",
      limit: pageSize,
      ...(cursor === undefined ? {} : { cursor })
    }))

/** How many wallets' newest transfers {@link newestOfSome} reads. */
const newestSample = 5

/**
 * The newest block among the newest transfers of the first few of `wallets` (0 when none has
 * any), read `concurrency` at a time: a block known to exist and be indexed, where a search for
 * the head starts when no checkpoint gives one.
 */
export const newestOfSome = (
  client: EvmClient.Service,
  chain: Chain.ChainId,
  wallets: ReadonlyArray<{ readonly address: string }>,
  concurrency = 1
) =>
  Effect.forEach(wallets.slice(0, newestSample), (wallet) =>
    client.getWalletNFTTransfers({ address: wallet.address, chain, limit: 1, order: "DESC" }).pipe(
      Effect.map((page) => page.result[0]?.block_number ?? 0n),
      Effect.mapError(failed("getWalletNFTTransfers"))
    ), { concurrency }).pipe(Effect.map((blocks) => maxOf([0n, ...blocks])))

/**
 * The last block `>= from` for which `holds` is true, given that it holds at `from` and that it
 * is monotone (true up to some block, false after): gallops (`from + 1, + 2, + 4, …`), then
 * bisects. About `2 log2(distance)` probes; 1 when nothing is new, 2 for one new block.
 *
 * For instance, from block 0 with a test that holds up to block 1000, it succeeds with `1000n`.
 */
export const lastWhere = Effect.fnUntraced(function*<E>(from: bigint, holds: (block: bigint) => Effect.Effect<boolean, E>) {
  // Offsets 1, 2, 4, 8, …: the usual case, one new block (or none), costs two probes (or one).
  let good = from
  let step = 1n
  let bad = from + step
  while (yield* holds(bad)) {
    good = bad
    step *= 2n
    bad = from + step
  }
  while (bad - good > 1n) {
    const middle: bigint = (good + bad) / 2n
    if (yield* holds(middle)) good = middle
    else bad = middle
  }
  return good
})

/** What `safeHeadSeen` found: the safe head, the depth asked for, and the hashes its probes saw. */
export interface SafeHead {
  readonly safe: bigint
  readonly depth: bigint
  /** The blocks found fully indexed by a probe, with the hash the probe gave (`""`: no NFT transfer). */
  readonly seen: ReadonlyMap<bigint, string>
}

/**
 * The newest block that may be read, searched from `from` (a block known to be readable, e.g. a
 * committed checkpoint): fully indexed, and with `confirmations > 0` at least that deep. A block
 * is taken as `N` deep once the block `N` after it is fully indexed (indexing follows the
 * chain's order), so that one probe per step answers both: about 2 probes per cycle for one new
 * block. When `from` is only known to be indexed (`fromIndexed`), the search starts `N` blocks
 * before it. Also returns the hashes the probes saw (see `witness`).
 */
export const safeHeadSeen = (
  client: EvmClient.Service,
  chain: Chain.ChainId,
  from: bigint,
  confirmations: number,
  options?: { readonly fromIndexed?: boolean }
) => {
  const depth = BigInt(Math.max(0, Math.floor(confirmations)))
  const back = options?.fromIndexed === true ? depth : 0n
  const start = from > back ? from - back : 0n
  const seen = new Map<bigint, string>()
  const holds = (block: bigint) =>
    Effect.map(probeBlock(client, chain, block + depth), (probe) => {
      if (probe.complete) seen.set(block + depth, probe.hash)
      return probe.complete
    })
  return Effect.map(lastWhere(start, holds), (safe): SafeHead => ({ safe, depth, seen }))
}

/** `safeHeadSeen`'s safe head alone. */
export const safeHead = (...search: Parameters<typeof safeHeadSeen>) => Effect.map(safeHeadSeen(...search), (head) => head.safe)
