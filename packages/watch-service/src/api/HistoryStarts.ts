/**
 * Where the history of each wallet of an `addWallets` request starts, checked before anything is
 * stored: a wallet's own `from` (`{ "wallet": "eth:0x…", "from": "19000000" }`), else the
 * request's (`"from": "2026-11-01"` for every chain, or `{ "eth": "19000000", "base": "2026-11-01" }`
 * per chain). A FROM is a block number or an ISO 8601 date (as `--backfill` takes it); a date is
 * the first block at or after it (`History.blockAt`). On Aptos a FROM is a ledger version (the
 * ledger API places no version by date). A FROM that is neither, names an unknown chain, is after
 * the chain's head, is a date before the chain's first block, or a date on Aptos, is a 400 naming
 * the field and what is valid; blocks that cannot be read to place a date, a 503.
 *
 * @since 0.5.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Backfill, History, type WatchedWallet } from "@chainquery/watch"
import { DateTime, Effect, Result } from "effect"
import * as Scopes from "../model/Scopes.js"
import { BadRequest, Unavailable } from "./ManagementApi.js"

const badRequest = (field: string, message: string) => new BadRequest({ error: "bad_request", field, message })

/**
 * What a request says of history: each wallet spec with its own `from` (or none), and the
 * request's `from` (one for every chain, or one per chain by name).
 *
 * @example
 * ```ts
 * import type { HistoryStarts } from "@chainquery/watch-service"
 *
 * const asked: HistoryStarts.Asked = { wallets: ["eth:0x00000000000000000000000000000000000000aa"], from: "2026-11-01" }
 * ```
 * @since 0.5.0
 */
export interface Asked {
  readonly wallets: ReadonlyArray<string | { readonly wallet: string; readonly from: string }>
  readonly from?: string | { readonly [chain: string]: string } | undefined
}

/** A FROM given in `field`, read. */
const fromOf = (text: string, field: string) =>
  Result.match(Backfill.decodeFrom(text), {
    onFailure: (invalid) => Effect.fail(badRequest(field, invalid.message)),
    onSuccess: (from) => Effect.succeed(from)
  })

/**
 * The first block of each wallet's history (`undefined`: none asked), in the order of `wallets`;
 * `positions` gives each wallet's index in the request's `wallets` (a spec of several chains is
 * several wallets), `headOf` the head of a scope (read once per scope, only for the scopes with a
 * history asked).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { HistoryStarts } from "@chainquery/watch-service"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const starts = HistoryStarts.resolve({ wallets: ["eth:0x00000000000000000000000000000000000000aa"], from: "19000000" }, wallets, [0], () => Effect.succeed(19_500_000n))
 * ```
 * @since 0.5.0
 */
export const resolve = <E>(
  asked: Asked,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
  positions: ReadonlyArray<number>,
  headOf: (scope: Scopes.Scope, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) => Effect.Effect<bigint, E>
): Effect.Effect<ReadonlyArray<bigint | undefined>, BadRequest | Unavailable | E, EvmClient.EvmClient> =>
  Effect.gen(function*() {
    // The request's FROM, for every chain or by chain.
    const byScope = new Map<Scopes.Scope, { readonly from: Backfill.From; readonly field: string; readonly text: string }>()
    let everywhere: { readonly from: Backfill.From; readonly field: string; readonly text: string } | undefined
    if (typeof asked.from === "string") everywhere = { from: yield* fromOf(asked.from, "from"), field: "from", text: asked.from }
    else if (asked.from !== undefined) {
      for (const [name, text] of Object.entries(asked.from)) {
        const scope = Scopes.fromName(name)
        if (scope === undefined) return yield* badRequest(`from.${name}`, `unknown chain "${name}"; valid: ${Scopes.validNames}`)
        byScope.set(scope, { from: yield* fromOf(text, `from.${name}`), field: `from.${name}`, text })
      }
    }
    // Each wallet's FROM, and where it was said.
    const wanted: Array<{ readonly from: Backfill.From; readonly field: string; readonly text: string } | undefined> = []
    for (const [index, wallet] of wallets.entries()) {
      const position = positions[index]!
      const entry = asked.wallets[position]
      const own = typeof entry === "object" ? { from: yield* fromOf(entry.from, `wallets[${position}].from`), field: `wallets[${position}].from`, text: entry.from } : undefined
      const said = own ?? byScope.get(Scopes.scopeOfWallet(wallet)) ?? everywhere
      if (said !== undefined && wallet.family === "aptos" && said.from._tag === "Date") {
        return yield* badRequest(
          said.field,
          `${said.text} is a date: on ${Scopes.nameOf(Scopes.scopeOfWallet(wallet))} give a ledger version (the ledger API places no version by date)`
        )
      }
      wanted.push(said)
    }
    // Per scope: its head (once), then each FROM checked against it and a date placed on it.
    const heads = new Map<Scopes.Scope, bigint>()
    const dates = new Map<string, bigint>()
    const starts: Array<bigint | undefined> = []
    for (const [index, said] of wanted.entries()) {
      if (said === undefined) {
        starts.push(undefined)
        continue
      }
      const wallet = wallets[index]!
      const scope = Scopes.scopeOfWallet(wallet)
      let head = heads.get(scope)
      if (head === undefined) {
        head = yield* headOf(scope, wallets.filter((other, i) => wanted[i] !== undefined && Scopes.scopeOfWallet(other) === scope))
        heads.set(scope, head)
      }
      const chain = Scopes.nameOf(scope)
      if (said.from._tag === "Block") {
        if (said.from.block > head) {
          return yield* badRequest(
            said.field,
            wallet.family === "aptos"
              ? `version ${said.from.block} is after ${chain}'s newest (${head}): give a ledger version up to ${head}`
              : `block ${said.from.block} is after ${chain}'s head (${head}): give a block up to ${head}, or a date`
          )
        }
        starts.push(said.from.block)
        continue
      }
      const key = `${scope} ${DateTime.formatIso(said.from.date)}`
      let block = dates.get(key)
      if (block === undefined) {
        if (wallet.family !== "evm") return yield* badRequest(said.field, "history is read for EVM chains only")
        const at = yield* History.blockAt(wallet.chain, said.from.date, head).pipe(
          Effect.mapError((error) =>
            new Unavailable({ error: "unavailable", message: `cannot read ${chain}'s blocks to place ${said.text} (${error.message}); nothing was stored, try again` })
          )
        )
        if (at._tag === "AfterHead") {
          return yield* badRequest(said.field, `${said.text} is after ${chain}'s head (${head}, at ${DateTime.formatIso(at.headAt)}): give an earlier date`)
        }
        if (at._tag === "BeforeHistory") {
          return yield* badRequest(
            said.field,
            `${said.text} is before ${chain}'s history, which starts at block ${at.first} (${DateTime.formatIso(at.firstAt)}): give a date from then on`
          )
        }
        block = at.block
        dates.set(key, block)
      }
      starts.push(block)
    }
    return starts
  })
