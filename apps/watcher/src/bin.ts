#!/usr/bin/env node
/**
 * The `chainquery-watcher` executable: runs {@link Cli.command} on Node. Exit codes: 0 on
 * success, on `--help` and when stopped by SIGINT/SIGTERM; 2 on bad input (flags, wallet specs,
 * wallet files, a missing key or one the service refuses, a state file that cannot be opened); 1
 * on any other failure. A
 * failure of ours (the state store, the engine) is printed as its message; anything else with
 * its cause.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, Effect, Exit } from "effect"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { CliError, Command } from "effect/cli"
import { EngineError, StateStore } from "@chainquery/watch"
import { EmbeddedDatabase, ServiceCluster, StreamSecrets } from "@chainquery/watch-service"
import * as Cli from "./Cli.js"
import { OutputError } from "./EventWriter.js"
import { presenter } from "./internal/invocationErrors.js"
import { exitOnSecondSignal } from "./internal/secondSignal.js"
import { version } from "./Version.js"

const isBadInput = (error: unknown): boolean =>
  error instanceof Cli.BadInput ||
  (error instanceof StateStore.StateStoreError && error.operation === "open") ||
  (CliError.isCliError(error) && (error._tag !== "ShowHelp" || error.errors.length > 0))

/** Our own failures, whose message says it all. */
const isKnown = (
  error: unknown
): error is
  | StateStore.StateStoreError
  | EngineError.EngineError
  | OutputError
  | ServiceCluster.ClusterDatabase
  | StreamSecrets.SecretsKeyError
  | EmbeddedDatabase.EmbeddedDatabaseError =>
  error instanceof StateStore.StateStoreError || error instanceof EngineError.EngineError || error instanceof OutputError ||
  error instanceof ServiceCluster.ClusterDatabase || error instanceof StreamSecrets.SecretsKeyError ||
  error instanceof EmbeddedDatabase.EmbeddedDatabaseError

/**
 * stdout is the event stream: what the command line library prints there (help after a bad flag)
 * goes to stderr instead, unless help, the version or completions were asked for.
 */
const args = process.argv.slice(2)
const asked = args.some((arg) => /^(-h|--help|-v|--version|--completions)(=|$)/.test(arg))

/**
 * What looks like a secret on the command line (the value of any flag named like a key, even a
 * mistyped one such as `--apikey`), and the key from the environment: the command line library
 * echoes unknown arguments in its messages, and these are replaced before they are printed.
 */
const secrets = [
  ...args.flatMap((arg, i) => {
    // A file flag's value is a path, not a secret (the messages about it name it).
    const inline = /^--?[\w-]*(?:key|token|secret|database)[\w-]*=(.+)$/i.exec(arg)
    if (inline !== null) return /^[^=]*-file=/i.test(arg) ? [] : [inline[1]!]
    const next = args[i + 1]
    return /^--?[\w-]*(?:key|token|secret|database)[\w-]*$/i.test(arg) && !/-file$/i.test(arg) && next !== undefined ? [next] : []
  }),
  process.env["MORALIS_API_KEY"] ?? "",
  process.env["CHAINQUERY_API_TOKEN"] ?? "",
  process.env["DATABASE_URL"] ?? "",
  process.env["CHAINQUERY_SECRETS_KEY"] ?? ""
].filter((secret) => secret.length >= 4)

const redacting = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    const text = secrets.reduce((out, secret) => out.split(secret).join("<redacted>"), chunk.toString())
    process.stderr.write(text)
    callback()
  }
})
const cliConsole = asked ? globalThis.console : new NodeConsole({ stdout: redacting, stderr: redacting })

const program = Command.run(Cli.command, { version }).pipe(
  Effect.provide(NodeServices.layer),
  // A wrong invocation: its error, once, and where the help is; not the whole help first.
  Effect.provide(presenter),
  Effect.provideService(Console.Console, cliConsole)
)

const releaseSecondSignal = exitOnSecondSignal()

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
    releaseSecondSignal()
    if (Exit.isSuccess(exit)) return onExit(0)
    const cause = exit.cause
    const errors = cause.reasons.filter(Cause.isFailReason).map((reason) => reason.error)
    for (const error of errors) {
      if (isKnown(error)) process.stderr.write(`chainquery-watcher: ${error.message}\n`)
    }
    if (errors.some(isBadInput)) return onExit(2)
    if (errors.length > 0 && errors.every(isKnown)) return onExit(1)
    if (errors.length === 0 && cause.reasons.every(Cause.isInterruptReason)) return onExit(0)
    if (errors.length > 0 && errors.every((error) => CliError.isCliError(error))) return onExit(0)
    process.stderr.write(`chainquery-watcher: ${Cause.pretty(cause)}\n`)
    onExit(1)
  }
})
