/**
 * Writing events where a consumer reads them (stdout), and knowing that they were taken: a
 * write resolves only once the stream has handed the text to the operating system, so that a
 * cycle is committed only after its events left the process. When stdout is a pipe, Node writes
 * asynchronously and buffers what the reader has not taken yet: committing before that would
 * lose the buffered events on `kill -9`, a signal or a closed pipe. Waiting also gives
 * backpressure: a slow consumer slows the watcher instead of filling its memory.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as Output from "./Output.js"
import type { WatchEvent } from "@chainquery/watch"

/**
 * The events could not be written (for example the reader of stdout went away: EPIPE). Nothing
 * of that batch was committed; the watcher stops, with exit code 1.
 *
 * @example
 * ```ts
 * import { EventWriter } from "@chainquery/watcher"
 *
 * new EventWriter.OutputError({ message: "cannot write the events to stdout: write EPIPE", cause: undefined })
 * ```
 * @since 0.1.0
 */
export class OutputError extends Schema.TaggedError<OutputError>()("OutputError", {
  message: Schema.String,
  cause: Schema.Defect()
}) {}

/** The streams that already have a listener for their `error` event (see {@link writeText}). */
const guarded = new WeakSet<NodeJS.WritableStream>()

/**
 * Writes `text` to `stream`, resolving once the stream has taken it (its write callback), or
 * failing with {@link OutputError}. The stream's `error` event gets a listener, so that a closed
 * pipe is this failure rather than an uncaught exception.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EventWriter } from "@chainquery/watcher"
 *
 * const program = EventWriter.writeText(process.stdout, "hello\n") // Effect<void, OutputError>
 * ```
 * @since 0.1.0
 */
export const writeText = (stream: NodeJS.WritableStream, text: string): Effect.Effect<void, OutputError> =>
  Effect.callback<void, OutputError>((resume) => {
    if (!guarded.has(stream)) {
      guarded.add(stream)
      stream.on("error", () => {})
    }
    const name = stream === process.stdout ? "stdout" : "the output"
    stream.write(text, (error) => {
      resume(
        error === null || error === undefined
          ? Effect.void
          : Effect.fail(new OutputError({ message: `cannot write the events to ${name}: ${error.message}`, cause: error }))
      )
    })
  })

/**
 * A function that writes events, one line each, in `format` (colour for `pretty` only when the
 * stream is a terminal), and resolves once the stream has taken them. `scrub`, when given, is
 * applied to the text first (the runner passes the API key's `Scrub.make`, so a record that
 * echoes the key is never printed with it). `blockTime`, when given, is the clock `pretty` shows
 * for the events that name a block but not its time (see `Output.BlockTime`). Given the batch's
 * `phase` `"history"` (a backfill's), each JSON line says `"phase":"history"`.
 *
 * @example
 * ```ts
 * import { Scrub } from "@chainquery/transport"
 * import { EventWriter } from "@chainquery/watcher"
 *
 * const print = EventWriter.make(process.stdout, "json", Scrub.make(process.env.MORALIS_API_KEY ?? ""))
 * // engine.step(print): the batch is committed after its lines were taken
 * ```
 * @since 0.1.0
 */
export const make = (
  stream: NodeJS.WritableStream & { readonly isTTY?: boolean },
  format: Output.Format,
  scrub: (text: string) => string = (text) => text,
  blockTime?: Output.BlockTime
): (events: ReadonlyArray<WatchEvent.WatchEvent>, phase?: "live" | "history") => Effect.Effect<void, OutputError> => {
  const line = Output.formatter({ format, color: format === "pretty" && stream.isTTY === true, blockTime })
  return (events, phase) => events.length === 0 ? Effect.void : writeText(stream, scrub(events.map((event) => `${line(event, phase)}\n`).join("")))
}
