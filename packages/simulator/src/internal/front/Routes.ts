/**
 * The front door's route table: which of the 14 operations a method and (normalised) pathname
 * is, plus each operation's default compute-unit weight. Plain string matching on path segments,
 * no regular expressions and no allocation beyond one `split`, because it runs on every request.
 *
 * @internal
 */
import { ComputeUnits } from "@chainquery/schema"

/** Every operation id the simulator serves: `ComputeUnits.operationIds` of `@chainquery/schema`. */
export const operationIds = ComputeUnits.operationIds

/** One of the 14 operations. */
export type OperationId = ComputeUnits.OperationId

/**
 * The short label of each operation in the service description (`A1`..`B7`).
 *
 * `getBlock`, for instance, is `"A6"`.
 */
export const operationLabels: Readonly<Record<OperationId, string>> = {
  getNFTTransfersByBlock: "A1",
  getWalletNFTTransfers: "A2",
  getNFTTransfers: "A3",
  getNFTTradesByWallet: "A4",
  getNFTOwners: "A5",
  getBlock: "A6",
  getDefiPositionsSummary: "A7",
  getNFTOwnersByCollection: "B1",
  getNFTTransfersByCreators: "B2",
  getWalletsNFTTransfers: "B3",
  getNFTCollections: "B4",
  getNFTByOwners: "B5",
  getNFTOwnersByTokens: "B6",
  getCoinsByNameRange: "B7"
}

/**
 * Default compute units charged per request of each operation. The service publishes no weights
 * for these endpoints (see `wire-notes.md`, "Rate limits"), so these are our assumptions, chosen
 * to be in proportion to the work each request asks for:
 *
 * - 5 for every paged NFT listing (A1..A5, B1..B7): one indexed lookup returning one page;
 * - 10 for A6 `getBlock`: a whole block with its transactions and logs (and optionally the
 *   internal transactions);
 * - 20 for A7 `getDefiPositionsSummary`: an aggregate over every DeFi protocol of a wallet.
 *
 * Requests that match no operation cost {@link unknownWeight}.
 */
export const defaultWeights: Readonly<Record<OperationId, number>> = ComputeUnits.defaultWeights

/**
 * Compute units charged for a request that matches no operation (it still reaches the service,
 * which answers 404).
 */
export const unknownWeight = 1

const idSet: ReadonlySet<string> = new Set(operationIds)
const byLabel: ReadonlyMap<string, OperationId> = new Map(
  operationIds.map((id) => [operationLabels[id], id] as const)
)

/**
 * Resolves an operation id or its short label (`"getBlock"` or `"A6"`) to the operation id, for
 * configuration keys; `undefined` when it is neither.
 *
 * `resolveOperationId("A6")` is `"getBlock"`, as is `resolveOperationId("getBlock")`;
 * `resolveOperationId("nope")` is `undefined`.
 */
export const resolveOperationId = (text: string): OperationId | undefined =>
  idSet.has(text) ? text as OperationId : byLabel.get(text)

/** The family A path prefix. */
const prefixA = "/api/v2.2/"

const matchA = (s: ReadonlyArray<string>): OperationId | undefined => {
  switch (s.length) {
    case 2:
      // /block/:block
      return s[0] === "block" ? "getBlock" : undefined
    case 3:
      // /:address/nft/transfers (any first segment, "block" and "nft" included)
      if (s[1] === "nft" && s[2] === "transfers") return "getWalletNFTTransfers"
      // /nft/:address/owners
      if (s[0] === "nft" && s[2] === "owners") return "getNFTOwners"
      return undefined
    case 4:
      if (s[0] === "block") return s[2] === "nft" && s[3] === "transfers" ? "getNFTTransfersByBlock" : undefined
      if (s[0] === "nft") return s[3] === "transfers" ? "getNFTTransfers" : undefined
      if (s[0] === "wallets") {
        if (s[2] === "nfts" && s[3] === "trades") return "getNFTTradesByWallet"
        if (s[2] === "defi" && s[3] === "positions") return "getDefiPositionsSummary"
      }
      return undefined
    default:
      return undefined
  }
}

const matchB = (s: ReadonlyArray<string>): OperationId | undefined => {
  switch (s.length) {
    case 1:
      return s[0] === "collections" ? "getNFTCollections" : undefined
    case 2:
      if (s[0] === "wallets") return s[1] === "nfts" ? "getNFTByOwners" : undefined
      if (s[0] === "nfts") return s[1] === "owners" ? "getNFTOwnersByTokens" : undefined
      return s[0] === "coins" && s[1] === "names" ? "getCoinsByNameRange" : undefined
    case 3:
      if (s[0] === "nfts") return s[1] === "transfers" && s[2] === "creators" ? "getNFTTransfersByCreators" : undefined
      return s[0] === "wallets" && s[1] === "nfts" && s[2] === "transfers" ? "getWalletsNFTTransfers" : undefined
    case 4:
      return s[0] === "nfts" && s[1] === "collections" && s[3] === "owners" ? "getNFTOwnersByCollection" : undefined
    default:
      return undefined
  }
}

/** Splits `a/b/c` (one trailing slash allowed) into segments; `undefined` when one is empty. */
const segments = (rest: string): Array<string> | undefined => {
  const trimmed = rest.endsWith("/") ? rest.slice(0, -1) : rest
  if (trimmed === "") return undefined
  const parts = trimmed.split("/")
  for (const part of parts) if (part === "") return undefined
  return parts
}

/**
 * The operation a request is, or `undefined` when it is none of the 14. Only `GET` (and `HEAD`)
 * requests match. `pathname` is the normalised pathname (see `Normalise.ts`): for family A it
 * starts with `/api/v2.2/`; for family B the `/aptos/<network>` prefix is already stripped. One
 * trailing slash is tolerated; empty segments are not. Overlaps are resolved by segment count
 * and literal segments: `/block/1` is A6, `/block/1/nft/transfers` A1, and any
 * `/:address/nft/transfers` A2.
 *
 * For a `GET`, family A's `/api/v2.2/block/123/nft/transfers` is `getNFTTransfersByBlock` and
 * `/api/v2.2/block/123` is `getBlock`, and family B's `/nfts/transfers/creators` is
 * `getNFTTransfersByCreators`; a `POST` is `undefined`.
 */
export const matchRoute = (method: string | undefined, family: "A" | "B", pathname: string): OperationId | undefined => {
  if (method !== "GET" && method !== "HEAD") return undefined
  if (family === "A") {
    if (!pathname.startsWith(prefixA)) return undefined
    const s = segments(pathname.slice(prefixA.length))
    return s === undefined ? undefined : matchA(s)
  }
  if (pathname[0] !== "/") return undefined
  const s = segments(pathname.slice(1))
  return s === undefined ? undefined : matchB(s)
}
