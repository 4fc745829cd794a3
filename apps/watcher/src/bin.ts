#!/usr/bin/env node
/**
 * The `chainquery-watcher` executable: runs {@link Cli.command} on Node. Exit codes: 0 on
 * success, on `--help` and when stopped by SIGINT/SIGTERM; 2 on bad input (flags, wallet specs,
 * wallet files, a missing key, a state file that cannot be opened); 1 on any other failure. A
 * failure of ours (the state store, the engine) is printed as its message; anything else with
 * its cause.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit } from "effect"
import { CliError, Command } from "effect/cli"
import * as Cli from "./Cli.js"
import { EngineError } from "./EngineError.js"
import { OutputError } from "./EventWriter.js"
import { StateStoreError } from "./StateStore.js"

const isBadInput = (error: unknown): boolean =>
  error instanceof Cli.BadInput ||
  (error instanceof StateStoreError && error.operation === "open") ||
  (CliError.isCliError(error) && (error._tag !== "ShowHelp" || error.errors.length > 0))

/** Our own failures, whose message says it all. */
const isKnown = (error: unknown): error is StateStoreError | EngineError | OutputError =>
  error instanceof StateStoreError || error instanceof EngineError || error instanceof OutputError

const program = Command.run(Cli.command, { version: "0.1.0" }).pipe(Effect.provide(NodeServices.layer))

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  teardown: (exit, onExit) => {
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
