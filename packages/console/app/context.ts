/** What every view of the console is given, and what it gives back. */
import type { Client } from "./api.js"

/** A view's surroundings: the client, where to go, how to tell the reader something. */
export interface Context {
  readonly client: Client
  /** Goes to a place of the console (`#/streams/str_…`). */
  readonly navigate: (hash: string) => void
  /** Says something in the page's status line (read out by screen readers). */
  readonly announce: (message: string, tone?: "ok" | "error") => void
  /**
   * Runs a request: its value, or `undefined` once its failure was said (a 401 signs out: the
   * session ended). With `quiet`, a failure is not said; with `refuse`, it is given to it (a form
   * shows it next to its field).
   */
  readonly attempt: <A>(
    request: () => Promise<A>,
    options?: { readonly quiet?: boolean; readonly refuse?: (failure: unknown) => void }
  ) => Promise<A | undefined>
}

/** A view: fills `main`; answers what to do when it is left (stop its refreshes). */
export type View = (context: Context, main: HTMLElement) => (() => void) | void

/** A tab of a stream's page. */
export type Tab = "deliveries" | "wallets" | "settings"

/** What a tab gives its stream's page: its element, and its refresh (when it is live). */
export interface TabPart {
  readonly element: HTMLElement
  readonly refresh?: () => Promise<void>
}
