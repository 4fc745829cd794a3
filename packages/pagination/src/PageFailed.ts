/**
 * The error a paginated stream fails with: the page's own error (`cause`, one of the typed errors
 * of the operation) plus where to resume: `resumeFrom` is the cursor of the page that failed,
 * i.e. the one that continues after the last page delivered. Retries of a page happen in the
 * transport; this error means they were exhausted.
 *
 * @since 0.1.0
 */
import { Data, type Option } from "effect"

/**
 * A page could not be read.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import type { PageFailed } from "@chainquery/pagination"
 *
 * declare const stream: Stream.Stream<number, PageFailed.PageFailed<Error>>
 * const saved = Stream.runDrain(stream).pipe(
 *   Effect.catchTag("PageFailed", (error) => Effect.succeed(error.resumeFrom)) // store it, resume later
 * )
 * ```
 * @since 0.1.0
 */
export class PageFailed<E> extends Data.TaggedError("PageFailed")<{
  /** What went wrong reading the page. */
  readonly cause: E
  /** The cursor to pass as `startCursor` to continue exactly where the stream stopped. */
  readonly resumeFrom: Option.Option<string>
  /** Pages delivered before the failure. */
  readonly pagesRead: number
}> {
  override get message(): string {
    const reason = typeof this.cause === "object" && this.cause !== null && "message" in this.cause
      ? String((this.cause as { readonly message: unknown }).message)
      : String(this.cause)
    return `page ${this.pagesRead} could not be read: ${reason}`
  }
}
