/**
 * A list read a page at a time by the API's cursors: where the reader is, the cursor to ask with,
 * and the buttons that move (the focus stays on the button pressed).
 */
import { h, patch } from "./dom.js"

/** A list's pages: `query()` to read the current one, `show` once it was read. */
export interface Pages {
  readonly element: HTMLElement
  /** The cursor of the current page, as a query's fields. */
  readonly query: () => { readonly cursor?: string }
  /** Back to the first page, read again (the list's filter changed). */
  readonly restart: () => Promise<void>
  /** The current page was read; `nextCursor` is the API's. */
  readonly show: (nextCursor: string | null) => void
}

/** Pages of a list named `label`; `moved` reads the page moved to. */
export const pages = (label: string, words: readonly [previous: string, next: string], moved: () => Promise<void>): Pages => {
  const cursors: Array<string | undefined> = [undefined]
  let page = 0
  // A move waits for its page: pressed twice quickly, "next" would ask for a cursor not known yet.
  let moving = false
  const element = h("nav", { class: "pager", "aria-label": label })
  const go = (by: number) => {
    if (moving) return
    moving = true
    page += by
    void moved().finally(() => {
      moving = false
    })
  }
  return {
    element,
    query: () => {
      const cursor = cursors[page]
      return cursor === undefined ? {} : { cursor }
    },
    restart: () => {
      page = 0
      cursors.length = 1
      return moved()
    },
    show: (nextCursor) => {
      cursors[page + 1] = nextCursor ?? undefined
      patch(element,
        h("button", { type: "button", "data-key": "previous", disabled: page === 0, onclick: () => go(-1) }, words[0]),
        h("span", {}, `Page ${page + 1}`),
        h("button", { type: "button", "data-key": "next", disabled: nextCursor === null, onclick: () => go(1) }, words[1]))
    }
  }
}
