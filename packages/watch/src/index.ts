/**
 * @chainquery/watch: the watcher's engine as a library. Wallet activity (NFTs in and out, trades,
 * DeFi positions, holdings, Aptos tokens) as an Effect `Stream`, each change once and in order,
 * with stable ids, reorganisation retractions and crash-safe checkpoints:
 *
 * - `Watch`: the stream (`Watch.batches`, `Watch.events`);
 * - `WatchSet`: the wallets a running stream watches, to add and remove while it runs;
 * - `WatchedWallet`: one wallet on one EVM chain or Aptos network;
 * - `WalletSpec`: wallets parsed from `eth:0x…`-style specs and wallet files;
 * - `WatchEvent`: the event model (Effect Schemas, exact JSON) and its pure constructors, defined
 *   per family in `NftEvents`, `TradeEvents`, `AptosEvents`, `DefiChanges` and `HoldingEvents`;
 * - `EventId`: how each event's stable id is derived;
 * - `StateStore`: the state as a service (checkpoints, block hashes, per-block events, DeFi
 *   snapshots, the batch in flight), in a SQLite file or in memory; `PgStateStore` keeps it in
 *   PostgreSQL, beside a service's own tables, and `PgCheckpoints` reads and places its wallets;
 * - `Engine`: one polling cycle (baseline, block scanning, per-wallet polling, Aptos batches,
 *   reorganisations), its `EngineError`, and `LedgerClients` (the Aptos client per network);
 * - `Backfill`: the history from a block or a date; `Baseline`: where the engine starts new wallets.
 *
 * @since 0.1.0
 */
export * as AptosEvents from "./AptosEvents.js"
export * as Backfill from "./Backfill.js"
export * as Baseline from "./Baseline.js"
export * as DefiChanges from "./DefiChanges.js"
export * as Engine from "./Engine.js"
export * as EngineError from "./EngineError.js"
export * as EventId from "./EventId.js"
export * as History from "./History.js"
export * as HoldingEvents from "./HoldingEvents.js"
export * as LedgerClients from "./LedgerClients.js"
export * as NftEvents from "./NftEvents.js"
export * as PgCheckpoints from "./PgCheckpoints.js"
export * as PgStateStore from "./PgStateStore.js"
export * as StateStore from "./StateStore.js"
export * as TradeEvents from "./TradeEvents.js"
export * as WalletSpec from "./WalletSpec.js"
export * as WatchedWallet from "./WatchedWallet.js"
export * as WatchEvent from "./WatchEvent.js"
export * as Watch from "./Watch.js"
export * as WatchSet from "./WatchSet.js"
