/**
 * @chainquery/watcher: a long-running CLI that polls wallets through chainquery and prints what
 * changed. These are its foundations:
 *
 * - `WatchedWallet`: one wallet on one EVM chain or Aptos network;
 * - `WalletSpec`: wallets parsed from `eth:0x…`-style specs and wallet files;
 * - `WatchEvent`: the event model (Effect Schemas, exact JSON) and its pure constructors, defined
 *   per family in `NftEvents`, `TradeEvents`, `AptosEvents` and `DefiChanges`;
 * - `EventId`: how each event's stable id is derived;
 * - `Output`: NDJSON and aligned, optionally coloured, lines;
 * - `StateStore`: the crash-safe state (checkpoints, block hashes, per-block events, DeFi
 *   snapshots, last batch);
 * - `Engine`: one polling cycle (baseline, block scanning, per-wallet polling, Aptos batches,
 *   reorganisations), its `EngineError`, and `LedgerClients` (the Aptos client per network);
 * - `Backfill`: the history from a block or a date, printed before watching.
 *
 * @since 0.1.0
 */
export * as AptosEvents from "./AptosEvents.js"
export * as DefiChanges from "./DefiChanges.js"
export * as EventId from "./EventId.js"
export * as EventWriter from "./EventWriter.js"
export * as HoldingEvents from "./HoldingEvents.js"
export * as NftEvents from "./NftEvents.js"
export * as Output from "./Output.js"
export * as StateStore from "./StateStore.js"
export * as TradeEvents from "./TradeEvents.js"
export * as WalletSpec from "./WalletSpec.js"
export * as WatchedWallet from "./WatchedWallet.js"
export * as WatchEvent from "./WatchEvent.js"
export * as Engine from "./Engine.js"
export * as Backfill from "./Backfill.js"
export * as Cli from "./Cli.js"
export * as Demo from "./Demo.js"
export * as Runner from "./Runner.js"
export * as EngineError from "./EngineError.js"
export * as LedgerClients from "./LedgerClients.js"
