/**
 * A block scanning cycle at the head that notices reorganisations by parent hashes
 * (`Engine.Options.reorgCheck: "parent-hash"`): two requests for a new block, two small ones for
 * a cycle that finds none, against five and three to four for the witness protocol (see
 * `witness`).
 *
 * The record of recent blocks (see `recentBlocks`) stays one chain: the next block's transfers are
 * read (A1 by number, which also says whether it is there), then its header (A6); the block is
 * taken only when the header names the newest recorded block as its parent and the transfers carry
 * the header's hash (a block with no NFT transfer carries none: its transfers are read again by
 * the header's hash), so that a reorganisation between the two reads is caught. One after them is
 * noticed by the next cycle: the next block's header names another parent, or (no next block yet)
 * the newest recorded block has another hash (one A1 record, see `witness.hashNow`). Either hands
 * the cycle to the witness protocol, which reads the record again down to the common ancestor, as
 * it always did.
 *
 * A cycle reads one new block. It asks whether the block after it is there too only when the cycle
 * before moved the wallets by one block (the chain may be further ahead): when it is, the cycle is
 * handed to the witness protocol, which reads ahead several blocks at once, and so are the cycles
 * after one that moved them by several (a chain making more than a block an interval). After a
 * cycle that found nothing, a block costs its transfers and its header; a chain with a new block
 * every cycle costs one request more per cycle, and the start of a burst one cycle. An engine's
 * first cycle is the witness protocol's (it finds the head, however far the chain went).
 *
 * Taken only where it applies: block scanning (or `auto` with two wallets or more) without
 * confirmations, every wallet at the newest recorded block, whose hash is known, and no wallet new.
 * Otherwise, and whenever anything is not as expected (a header or a probe that fails included),
 * `undefined`: the witness protocol runs.
 *
 * @internal
 */
import { Effect } from "effect"
import type { ChainInput } from "./chainInput.js"
import { emptyStep, type Step } from "./cycleStep.js"
import { headerOf, probeBlock, readBlock } from "./evmReads.js"
import { holds, movesOf } from "./blockScan.js"
import { byChainOrder, eventsOf, hashOf, type Recent } from "./recentBlocks.js"
import { recordHeadLag } from "./watchMetrics.js"
import { hashNow } from "./witness.js"

/** The newest recorded block and its hash, when every wallet stands there and its hash is known. */
const chainTop = (input: ChainInput, recent: Recent): string | undefined => {
  const { fresh, highest, start } = input.index
  if (fresh.length > 0 || highest !== start) return undefined
  const hash = recent.hashes.get(start)
  if (hash === undefined || hash === "") return undefined
  for (const block of recent.hashes.keys()) if (block > start) return undefined
  return hash
}

/**
 * Whether the cycle may chain by parent hashes (see the module's comment): not after a cycle that
 * moved the wallets by several blocks (the chain makes more than one block an interval, or is
 * catching up: the witness protocol reads ahead), nor as an engine's first.
 */
export const chains = (input: ChainInput): boolean =>
  input.reorgCheck === "parent-hash" && input.reorgWindow > 0 && input.confirmations <= 0 &&
  input.pace.moved >= 0n && input.pace.moved <= 1n &&
  (input.strategy === "block-scan" || (input.strategy === "auto" && input.index.tracked.length >= 2))

/** `effect`'s answer, or `undefined` when it failed: the witness protocol reads the chain instead. */
const orWitness = <A, E, R>(effect: Effect.Effect<A | undefined, E, R>) => Effect.orElseSucceed(effect, () => undefined)

/**
 * The cycle by parent hashes from the newest recorded block, or `undefined` when the witness
 * protocol must run instead (see the module's comment).
 */
export const chainedCycle = Effect.fnUntraced(function*(input: ChainInput, recent: Recent) {
  const { chain, client, index } = input
  /** The chain's head, as this cycle leaves it: at the newest recorded block or the one it took. */
  const reached = (head: bigint) => Effect.andThen(recordHeadLag(chain, 0n), input.onHead(head))
  const top = chainTop(input, recent)
  if (top === undefined) return undefined
  const start = index.start
  const block = start + 1n
  // The next block's transfers, read by number: whether it is there (and indexed) comes with them.
  const read = yield* readBlock(client, chain, block)
  if (!read.exists || !read.complete) {
    // Nothing new (or not all indexed yet): the newest recorded block must still be the one on record.
    if ((yield* orWitness(hashNow(client, chain, start))) !== top) return undefined
    yield* reached(start)
    return emptyStep
  }
  // Its header names its parent; after a cycle that found a block, the chain may be further ahead.
  const [header, after] = yield* Effect.all([
    orWitness(headerOf(client, chain, block)),
    input.pace.moved === 1n ? orWitness(probeBlock(client, chain, block + 1n)) : Effect.succeed(undefined)
  ], { concurrency: 2 })
  if (header === undefined || header.parent !== top || after?.complete === true) return undefined
  // The transfers must be that header's block: by their hash, or (none, so no hash) read by the header's.
  const listing = hashOf(read.transfers) === "" ? yield* orWitness(readBlock(client, chain, header.hash)) : read
  if (listing === undefined || !listing.exists || !listing.complete) return undefined
  if (listing.transfers.some((transfer) => transfer.block_hash.toLowerCase() !== header.hash)) return undefined
  // Every watched wallet stands at `start`, below the block: all of them print its events; the
  // record holds those of every wallet whose reports it covers, resting ones included.
  const events = eventsOf(chain, index.byAddress(), listing.transfers, () => true).toSorted(byChainOrder)
  const recorded = eventsOf(chain, index.everyone(), listing.transfers, holds(block))
  const { advances, checkpoints } = movesOf(chain, index, input.resting, start, block, header.hash)
  yield* reached(block)
  return {
    ...emptyStep,
    events,
    advances,
    checkpoints,
    blocks: [{ chain, number: block, hash: header.hash }],
    blockEvents: [{ chain, number: block, hash: header.hash, events: recorded }]
  } satisfies Step
})
