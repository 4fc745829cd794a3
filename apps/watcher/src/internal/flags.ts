/**
 * The flags of `chainquery-watcher`, each with its `--help` text and example, parsed and checked
 * here so that a bad value is reported by `effect/cli` before anything starts.
 *
 * @internal
 */
import { DurationInput } from "@chainquery/schema"
import { Duration, Result } from "effect"
import { Flag } from "effect/cli"
import { Backfill, Engine, WalletSpec } from "@chainquery/watch"

type Watch = Engine.Watch
type From = Backfill.From
const { defaultWatch, watchKinds } = Engine
const { decodeFrom, InvalidFrom } = Backfill

export const message = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** The shortest interval accepted: below it a watcher would only poll the service in a busy loop. */
const minimumInterval = Duration.millis(100)

/**
 * Parses a duration for `--<flag>` with the grammar and the messages shared by every CLI of the
 * project (`DurationInput` of `@chainquery/schema`: `10s`, `500ms`, `2m`, `1h`, `1.5 seconds`; a
 * bare number is seconds), at least `minimum`; throws with what is valid.
 */
export const parseDuration = (flag: string, minimum: Duration.Duration) => (text: string): Duration.Duration =>
  DurationInput.parseFlagUnsafe(`--${flag}`, text, { minimum })

/**
 * Parses an interval such as `10s`, `2s`, `500ms`, `1m`, `1h`, `1.5 seconds`, at least 100ms;
 * throws with what is valid.
 */
export const parseInterval: (text: string) => Duration.Duration = parseDuration("interval", minimumInterval)

/** Parses `transfers,trades` (comma-separated, repeatable values already joined); throws with the valid values. */
export const parseWatch = (values: ReadonlyArray<string>): ReadonlyArray<Watch> => {
  if (values.length === 0) return defaultWatch
  const chosen = new Set<Watch>()
  for (const part of values.flatMap((value) => value.split(","))) {
    const name = part.trim().toLowerCase()
    const known = watchKinds.find((kind) => kind === name)
    if (known === undefined) {
      throw new Error(`--watch: unknown ${JSON.stringify(part)}; valid: ${watchKinds.join(", ")} (comma-separated)`)
    }
    chosen.add(known)
  }
  return watchKinds.filter((kind) => chosen.has(kind))
}

/** A parser of a percentage such as `5`, `5%` or `0.5%` into a fraction (0.05), for `--<flag>`; it throws with what is valid. */
export const percentOf = (flag: string) => (text: string): number => {
  const match = /^(\d+(?:\.\d+)?)\s*%?$/.exec(text.trim())
  const value = match?.[1] === undefined ? Number.NaN : Number(match[1])
  if (!Number.isFinite(value)) throw new Error(`--${flag}: expected a percentage such as 5 or 2.5%, got ${JSON.stringify(text)}`)
  // A value can fall by at most 100%: a larger threshold would silently hide every fall.
  if (value > 100) throw new Error(`--${flag}: expected a percentage from 0 to 100, got ${JSON.stringify(text)}`)
  return value / 100
}

/** Parses `--defi-threshold` (see {@link percentOf}). */
export const parsePercent: (text: string) => number = percentOf("defi-threshold")

export const wallet = Flag.String("wallet").pipe(
  Flag.withMetavar("SPEC"),
  Flag.withDescription(
    `A wallet to watch (repeatable): ${WalletSpec.syntax}. Valid chains: ${WalletSpec.validChains}. ` +
      "Example: --wallet eth,polygon:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --wallet aptos:0x1"
  ),
  Flag.atLeast(0)
)

export const walletsFile = Flag.String("wallets-file").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "A text file of wallet specs, one per line; '#' starts a comment, blank lines are ignored. Example: --wallets-file wallets.txt"
  ),
  Flag.optional
)

export const interval = Flag.String("interval").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription("How often to poll: from one cycle's start to the next's (default 10s). Example: --interval 30s, --interval 500ms, --interval 2m"),
  Flag.withDefault("10s"),
  Flag.mapTryCatch(parseInterval, message)
)

export const once = Flag.Boolean("once").pipe(
  Flag.withDescription("Run one polling cycle, print what changed since the last run and exit. Example: --once"),
  Flag.withDefault(false)
)

export const format = Flag.Literals("format", ["pretty", "json"]).pipe(
  Flag.withDescription(
    "Output format: 'pretty' (aligned lines, coloured on a terminal) or 'json' (NDJSON, one event per line). Default pretty. Example: --format json"
  ),
  Flag.withDefault("pretty")
)

export const state = Flag.String("state").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "SQLite file keeping checkpoints between runs (created if missing; default ./chainquery-watcher.db). Example: --state /var/lib/watcher.db"
  ),
  Flag.withDefault("./chainquery-watcher.db")
)

export const confirmations = Flag.Int("confirmations").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "Only read EVM blocks at least N blocks deep (default 0: read the newest block and follow reorganisations). Example: --confirmations 3"
  ),
  Flag.withDefault(0),
  Flag.mapTryCatch((n) => {
    if (n < 0) throw new Error(`--confirmations must be 0 or more, got ${n}`)
    return n
  }, message)
)

export const strategy = Flag.Literals("strategy", ["auto", "block-scan", "per-wallet"]).pipe(
  Flag.withDescription(
    "How EVM wallets are polled: 'block-scan' (one listing per new block), 'per-wallet' (one listing per wallet) or 'auto' (the cheaper per chain and cycle). Default auto. Example: --strategy per-wallet"
  ),
  Flag.withDefault("auto")
)

export const evmBaseUrl = Flag.String("evm-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the EVM API (without /api/v2.2); default: the production service. Example: --evm-base-url http://127.0.0.1:4000"
  ),
  Flag.optional
)

export const ledgerBaseUrl = Flag.String("ledger-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the Aptos mainnet API; default: the production service. Example: --ledger-base-url http://127.0.0.1:4000/aptos/mainnet"
  ),
  Flag.optional
)

export const ledgerTestnetBaseUrl = Flag.String("ledger-testnet-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the Aptos testnet API; default: the production service. Example: --ledger-testnet-base-url http://127.0.0.1:4000/aptos/testnet"
  ),
  Flag.optional
)

export const allowInsecureHttp = Flag.Boolean("allow-insecure-http").pipe(
  Flag.withDescription(
    "Send the API key over plain http: to a host that is not loopback (anyone on the way can read it). Without it, such a base URL is refused. Example: --allow-insecure-http"
  ),
  Flag.withDefault(false)
)

export const apiKey = Flag.Redacted("api-key").pipe(
  Flag.withMetavar("KEY"),
  Flag.withDescription(
    "The service's API key on the command line: discouraged, as every user of the machine can read a process's arguments (ps); " +
      "prefer --api-key-file or the MORALIS_API_KEY environment variable. Never printed."
  ),
  Flag.optional
)

export const apiKeyFile = Flag.String("api-key-file").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "A file holding the service's API key (a trailing newline is ignored); not with --api-key. Without either, the MORALIS_API_KEY " +
      "environment variable. Example: --api-key-file /run/secrets/moralis-api-key"
  ),
  Flag.optional
)


export const watch = Flag.String("watch").pipe(
  Flag.withMetavar("WHAT"),
  Flag.withDescription(
    `What to report, comma-separated or repeated: ${watchKinds.join(", ")}. Default ${defaultWatch.join(",")}. ` +
      "'holdings' reads a collection's owners after a wallet's tokens in it moved, and says when they are still SYNCING. " +
      "Example: --watch transfers,trades"
  ),
  Flag.atLeast(0),
  Flag.mapTryCatch(parseWatch, message)
)

export const defiThreshold = Flag.String("defi-threshold").pipe(
  Flag.withMetavar("PERCENT"),
  Flag.withDescription(
    "Report a DeFi position as changed when its USD value moved by at least this percentage (default 5). Example: --defi-threshold 2.5"
  ),
  Flag.withDefault("5"),
  Flag.mapTryCatch(parsePercent, message)
)

export const defiInterval = Flag.String("defi-interval").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "How often DeFi positions are read (one request per wallet and chain; default 5m, never more often than --interval). Example: --defi-interval 1m"
  ),
  Flag.withDefault("5m"),
  Flag.mapTryCatch(parseDuration("defi-interval", minimumInterval), message)
)

/** The shortest request timeout accepted: below it a healthy answer would time out. */
const minimumTimeout = Duration.millis(100)

export const requestTimeout = Flag.String("request-timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "How long one request may wait for its whole answer before it is given up and tried again (default 10s); " +
      "a call with its retries may take six times this, at least 60s. " +
      "Example: --request-timeout 5s"
  ),
  Flag.withDefault("10s"),
  Flag.mapTryCatch(parseDuration("request-timeout", minimumTimeout), message)
)

/** Parses `--compute-units`: a positive number of compute units per second; throws with what is valid. */
export const parseComputeUnits = (text: string): number => {
  const value = /^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN
  if (!(value > 0)) throw new Error(`--compute-units: expected a positive number of compute units per second, got ${JSON.stringify(text)}`)
  return value
}

export const computeUnits = Flag.String("compute-units").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "The compute units per second the watcher may spend on each API it reads (EVM; Aptos mainnet; Aptos testnet), " +
      "each request weighted by its operation (see your plan's limit). Default: no limit of its own; either way it slows down " +
      "whenever the service answers 429. " +
      "Example: --compute-units 40"
  ),
  Flag.mapTryCatch(parseComputeUnits, message),
  Flag.optional
)

/**
 * Parses a `--backfill` FROM (a block number or an ISO 8601 date); throws the `InvalidFrom` saying what is valid.
 * For example, `parseBackfill("2026-11-01")` is `{ _tag: "Date", date: 2026-11-01T00:00:00Z }`.
 */
export const parseBackfill = (text: string): From => {
  const result = decodeFrom(text)
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

/**
 * `--backfill FROM`: `Option.some(From)` when given; a bad FROM is a flag error (exit 2) saying what is valid.
 * It goes into a command like any flag: `Command.make("chainquery-watcher", { backfill }, ...)`.
 */
export const backfill = Flag.String("backfill").pipe(
  Flag.withMetavar("FROM"),
  Flag.withDescription(
    "Before watching, print each wallet's history from FROM (inclusive), with a progress bar on stderr: " +
      "for a wallet the state file knows, up to its checkpoint (events printed before come again, with the same ids); " +
      "for a new one, up to the newest indexed block (--confirmations deep; Aptos: the newest ledger version), where watching then goes on instead of taking a baseline. " +
      "FROM: a block number (Aptos: a ledger version) or an ISO 8601 date (2026-11-01, 2026-11-01T12:00:00Z; UTC when no zone is given). " +
      "Prints NFT transfers, and trades when watched (on the chains that have them); DeFi positions and holdings have no history. " +
      "With --once: the history, then one cycle. Example: --backfill 2026-11-01"
  ),
  Flag.mapTryCatch(parseBackfill, (error) => (error instanceof InvalidFrom ? error.expected : message(error))),
  Flag.optional
)

/** The flags of how the service is reached, shared by the watching CLI and `serve`. */
export const serviceAccess = {
  requestTimeout,
  computeUnits,
  evmBaseUrl,
  ledgerBaseUrl,
  ledgerTestnetBaseUrl,
  allowInsecureHttp,
  apiKey,
  apiKeyFile
}
