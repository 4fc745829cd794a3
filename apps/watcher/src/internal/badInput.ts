/**
 * Bad input on the command line, and how a command reports it.
 *
 * @internal
 */
import { Console, Effect, Schema } from "effect"

/**
 * Bad input (a wallet spec, a wallet file, a missing key): the message was already written to
 * stderr; the executable exits with code 2.
 *
 * @example
 * ```ts
 * import { Cli } from "@chainquery/watcher"
 *
 * const error = new Cli.BadInput({ message: "no wallets" })
 * ```
 * @since 0.1.0
 */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", {
  message: Schema.String
}) {}

/** Writes `chainquery-watcher: <message>` to stderr and fails with a {@link BadInput} (exit 2). */
export const badInput = (message: string): Effect.Effect<never, BadInput> =>
  Console.error(`chainquery-watcher: ${message}`).pipe(Effect.andThen(Effect.fail(new BadInput({ message }))))
