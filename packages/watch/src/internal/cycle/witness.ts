/**
 * A cycle's witness block: the newest block the cycle may read (its safe head, or with
 * confirmations the block that many after it), whose hash is read before the cycle's other reads
 * and again after them.
 *
 * A cycle's reads take time (four at a time, with retries), and a reorganisation can land between
 * two of them: a block read before it and one read after it then both go on record, and a later
 * check that finds the newer one unchanged takes the older one, stale, for unchanged too (the
 * soak found this twice: a record probe vouching for a block read after the reorganisation, and a
 * window read whose slow retry let a catch-up scan move the window past a stale block).
 *
 * A reorganisation replaces every block from its lowest up to the head. Any block the cycle read
 * is at or below the witness, and the witness existed when first read, so a reorganisation that
 * replaced a block the cycle read replaced the witness too: when the witness's hash changed, the
 * cycle's reads may mix two chains, and nothing of it is kept (read again next cycle). When it
 * did not, every read of the cycle saw one chain, and the record stays consistent.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import { headerOf, probeBlock, safeHeadSeen } from "./evmReads.js"

/** The witness block and the hash it had when first read. */
export interface Witness {
  readonly block: bigint
  readonly hash: string
}

/**
 * A block's hash now: its first NFT transfer's (one A1 record), or its header's (A6) when it has
 * no NFT transfer; `undefined` when it does not exist or is not fully indexed.
 */
export const hashNow = Effect.fnUntraced(function*(client: EvmClient.Service, chain: Chain.ChainId, block: bigint) {
  const probe = yield* probeBlock(client, chain, block)
  if (!probe.complete) return undefined
  return probe.hash !== "" ? probe.hash : yield* headerHash(client, chain, block)
})

/** A block's hash from its header (A6), for a block without NFT transfers; `undefined` when unknown. */
const headerHash = (client: EvmClient.Service, chain: Chain.ChainId, block: bigint) =>
  Effect.map(headerOf(client, chain, block), (header) => header?.hash)

/**
 * The safe head from `from` (see `safeHeadSeen`) and its witness, read before anything else of
 * the cycle: the probe that found the head gave its hash, so that this costs a request only when
 * nothing is new (or the witness has no NFT transfer). `witness` is `undefined` when the witness
 * block is not readable (the cycle cannot be vouched for: it is read again next cycle).
 */
export const witnessedHead = Effect.fnUntraced(function*(client: EvmClient.Service, chain: Chain.ChainId, from: bigint, confirmations: number) {
  const { depth, safe, seen } = yield* safeHeadSeen(client, chain, from, confirmations)
  const block = safe + depth
  // The probe that found the head read the witness already, unless nothing was new (its block was not probed).
  const probed = seen.get(block)
  const hash = probed === undefined ? yield* hashNow(client, chain, block) : probed !== "" ? probed : yield* headerHash(client, chain, block)
  return { safe, witness: hash === undefined ? undefined : ({ block, hash } satisfies Witness) }
})

/** Whether the witness still has the hash it had: no reorganisation reached the cycle's reads. */
export const stands = (client: EvmClient.Service, chain: Chain.ChainId, witness: Witness) =>
  Effect.map(hashNow(client, chain, witness.block), (hash) => hash === witness.hash)
