/**
 * @chainquery/watcher: a long-running CLI that polls wallets through chainquery and prints what
 * changed. Its engine, event model and state are the library `@chainquery/watch`; this package
 * keeps the command line and what only it needs:
 *
 * - `Cli`: the `chainquery-watcher` command, its flags and the `demo` subcommand (`Demo`);
 * - `Runner`: the polling loop behind the command, over `Watch.batches`;
 * - `Output`: NDJSON and aligned, optionally coloured, lines;
 * - `EventWriter`: events written to stdout, waiting until it took them.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"
export * as Demo from "./Demo.js"
export * as EventWriter from "./EventWriter.js"
export * as Output from "./Output.js"
export * as Runner from "./Runner.js"
