/**
 * Stable event ids. An id is derived only from what identifies the change on chain (chain or
 * network, transaction and log position or ledger version and event handle, direction), never
 * from when or how it was observed, so the same change always gets the same id: across polling
 * strategies, retries and restarts. A consumer de-duplicates by id.
 *
 * - NFT transfer: `evm:<chainId>:<txHash>:<logIndex>:<tokenId>:<received|sent>` (the token id
 *   tells apart the items of one ERC-1155 batch log);
 * - trade: `trade:<chainId>:<txHash>:<collection>:<tokenIds>:<bought|sold>`;
 * - Aptos transfer: `aptos:<network>:<version>:<eventAccount>:<creationNumber>:<sequenceNumber>:<in|out>`
 *   (an event handle is an account and a creation number);
 * - DeFi: `defi:<chainId>:<wallet>:<positionKey>:<block>:<opened|closed|changed>`;
 * - retraction: `retracted:<original id>:<orphaned block hash>`.
 *
 * @since 0.1.0
 */
import type { Chain } from "@chainquery/schema"
import type { AptosNetwork } from "./WatchedWallet.js"

/**
 * The id of one side of an NFT transfer.
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.nft("0x1", "0xabc…", 7, 1234n, "received") // "evm:0x1:0xabc…:7:1234:received"
 * ```
 * @since 0.1.0
 */
export const nft = (
  chain: Chain.ChainId,
  transactionHash: string,
  logIndex: number,
  tokenId: bigint,
  direction: "received" | "sent"
): string => `evm:${chain}:${transactionHash.toLowerCase()}:${logIndex}:${tokenId}:${direction}`

/**
 * The id of one side of an NFT trade, with its counterparty (one transaction may buy the same
 * token ids from two sellers).
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.trade("0x89", "0xdef…", "0xcol…", [1n, 2n], "sold", "0xbuyer…") // "trade:0x89:0xdef…:0xcol…:1,2:sold:0xbuyer…"
 * ```
 * @since 0.1.0
 */
export const trade = (
  chain: Chain.ChainId,
  transactionHash: string,
  collection: string,
  tokenIds: ReadonlyArray<bigint>,
  direction: "bought" | "sold",
  counterparty: string
): string =>
  `trade:${chain}:${transactionHash.toLowerCase()}:${collection.toLowerCase()}:${tokenIds.join(",")}:${direction}:${counterparty.toLowerCase()}`

/**
 * The id of one side of an Aptos token transfer.
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.aptos("mainnet", 123n, "0x1", 4n, 9n, "in") // "aptos:mainnet:123:0x1:4:9:in"
 * ```
 * @since 0.1.0
 */
export const aptos = (
  network: AptosNetwork,
  version: bigint,
  eventAccount: string,
  creationNumber: bigint,
  sequenceNumber: bigint,
  direction: "in" | "out"
): string => `aptos:${network}:${version}:${eventAccount}:${creationNumber}:${sequenceNumber}:${direction}`

/**
 * The id of a DeFi position change observed at a block, with the USD values before and after
 * (so that two changes of one position seen at the same block keep their own ids; `-` for none).
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.defi("0x1", "0xwallet…", "aave-v3/supplied/0xpool…", 19000000n, "changed", 1000, 1200.5)
 * // "defi:0x1:0xwallet…:aave-v3/supplied/0xpool…:19000000:changed:1000:1200.5"
 * ```
 * @since 0.1.0
 */
export const defi = (
  chain: Chain.ChainId,
  wallet: string,
  positionKey: string,
  block: bigint,
  kind: "opened" | "closed" | "changed",
  usdBefore: number | null,
  usdAfter: number | null
): string => `defi:${chain}:${wallet}:${positionKey}:${block}:${kind}:${usdBefore ?? "-"}:${usdAfter ?? "-"}`

/**
 * The id of the retraction of an event whose block (`orphanedBlockHash`) was orphaned. A block
 * orphaned twice at the same height has another hash, so each retraction keeps its own id.
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.retracted("evm:0x1:0xabc…:7:1234:received", "0xblock…")
 * ```
 * @since 0.1.0
 */
export const retracted = (originalId: string, orphanedBlockHash: string): string =>
  `retracted:${originalId}:${orphanedBlockHash.toLowerCase()}`

/**
 * The id of a holding report: a wallet's balance of one token (or, with `tokenId` `null`, a
 * collection still `SYNCING`) after its transfers up to `block`.
 *
 * @example
 * ```ts
 * import { EventId } from "@chainquery/watch"
 *
 * EventId.holding("0x1", "0xwallet…", "0xcollection…", 1234n, 19000000n) // "holding:0x1:0xwallet…:0xcollection…:1234:19000000"
 * ```
 * @since 0.1.0
 */
export const holding = (
  chain: Chain.ChainId,
  wallet: string,
  collection: string,
  tokenId: bigint | null,
  block: bigint
): string => `holding:${chain}:${wallet}:${collection.toLowerCase()}:${tokenId === null ? "syncing" : tokenId}:${block}`
