/**
 * A stream's wallets: found by part of their address, 100 a page, each removable; added in bulk,
 * one spec a line, with the API's reason for each refused spec shown next to its line (one bad
 * spec refuses the whole request: nothing is added until every line is right).
 */
import { ApiFailure, messageOf, run } from "../api.js"
import type { Context, TabPart } from "../context.js"
import { h, patch } from "../dom.js"
import { count } from "../format.js"
import { latestOnly } from "../live.js"
import { pages } from "../paging.js"
import type { Stream } from "../model.js"

const pageSize = 100

/** The wallets tab of `stream`. */
export const walletsTab = (context: Context, stream: Stream): TabPart => {
  const { client } = context
  let search = ""
  const list = h("div", { class: "table-region" }, h("p", { class: "muted" }, "Loading…"))
  const pager = pages("Pages of wallets", ["Previous page", "Next page"], () => load())
  const latest = latestOnly()
  const specs = h("textarea", { id: "wallet-specs", rows: 6, spellcheck: "false", "aria-describedby": "wallet-specs-help wallet-errors", placeholder: "eth:0x…" })
  const errors = h("div", { id: "wallet-errors", "aria-live": "polite" })

  const load = async (): Promise<void> => {
    const listed = await latest(context.attempt(() =>
      run(client.streams.listWallets({
        params: { id: stream.id },
        query: { limit: pageSize, ...(search === "" ? {} : { search }), ...pager.query() }
      }))))
    if (listed === undefined) return
    pager.show(listed.nextCursor)
    patch(list, listed.wallets.length === 0
      ? h("p", { class: "empty" }, search === "" ? "No wallet yet: add some below." : `No wallet whose address contains “${search}”.`)
      : h("ul", { class: "wallets" }, listed.wallets.map((wallet) =>
        h("li", {},
          h("code", {}, wallet),
          h("button", {
            type: "button",
            "data-key": `remove:${wallet}`,
            "aria-label": `Remove ${wallet}`,
            onclick: async () => {
              const removed = await context.attempt(() => run(client.streams.removeWallets({ params: { id: stream.id }, payload: { wallets: [wallet] } })))
              if (removed === undefined) return
              context.announce(`Removed ${wallet}: the stream has ${count(removed.wallets)} wallets.`)
              await load()
            }
          }, "Remove")))))
  }

  const add = async (event: SubmitEvent) => {
    event.preventDefault()
    const numbered = specs.value.split("\n").map((text, index) => ({ line: index + 1, spec: text.trim() })).filter(({ spec }) => spec !== "")
    errors.replaceChildren()
    if (numbered.length === 0) {
      errors.append(h("p", { class: "error" }, "Give at least one wallet spec, one a line."))
      return
    }
    const added = await context.attempt(
      () => run(client.streams.addWallets({ params: { id: stream.id }, payload: { wallets: numbered.map(({ spec }) => spec) } })),
      {
        refuse: (failure) => {
          const invalid = failure instanceof ApiFailure ? failure.invalid ?? [] : []
          errors.append(invalid.length === 0
            ? h("p", { class: "error" }, messageOf(failure))
            : h("div", { class: "error" },
              h("p", {}, `Nothing was added: ${invalid.length} line${invalid.length === 1 ? " is" : "s are"} refused.`),
              h("ul", { class: "line-errors" }, invalid.map((bad) =>
                h("li", {}, h("span", { class: "line" }, `Line ${numbered[bad.position]?.line ?? bad.position + 1}`), " ", h("code", {}, bad.spec), ": ", bad.reason)))))
          specs.focus()
        }
      }
    )
    if (added === undefined) return
    specs.value = ""
    context.announce(`Added ${count(added.added)} wallet${added.added === 1 ? "" : "s"}: the stream has ${count(added.wallets)}.`)
    await load()
  }

  let typing: ReturnType<typeof setTimeout> | undefined
  const searchBox = h("input", {
    id: "wallet-search",
    type: "search",
    placeholder: "0x5aae…",
    oninput: (event: Event) => {
      clearTimeout(typing)
      typing = setTimeout(() => {
        search = (event.target as HTMLInputElement).value.trim()
        void pager.restart()
      }, 250)
    }
  })
  void load()
  return {
    element: h("section", { "aria-labelledby": "wallets-title" },
      h("div", { class: "heading" },
        h("h2", { id: "wallets-title" }, "Wallets"),
        h("div", { class: "inline" }, h("label", { for: "wallet-search" }, "Find"), searchBox)),
      list,
      pager.element,
      h("form", { class: "add-wallets", onsubmit: add },
        h("h3", {}, h("label", { for: "wallet-specs" }, "Add wallets")),
        specs,
        h("p", { id: "wallet-specs-help", class: "help" }, "One spec a line: chain:address (eth:0x5aae…, aptos:0x…), up to 10,000 at once."),
        errors,
        h("button", { type: "submit", class: "primary" }, "Add the wallets")))
  }
}
