/**
 * The streams: each with its state (and why), success rate, backlog and the age of its oldest
 * pending batch, last delivered sequence, coverage per chain (how far behind the head and the
 * batches made) and last error; pause, resume and
 * delete (after a confirmation). Live: refreshed every 2 seconds. Paged by 50.
 */
import { run } from "../api.js"
import type { Context, View } from "../context.js"
import { h, patchIfChanged } from "../dom.js"
import { age, count, percent, time } from "../format.js"
import { keepLive, latestOnly } from "../live.js"
import { pages } from "../paging.js"
import type { Stats, Stream } from "../model.js"
import { confirmDialog } from "./dialogs.js"
import { nameOf, statusBadge } from "./status.js"

const pageSize = 50

/** Pauses, resumes or deletes `stream` (the delete after a confirmation); answers whether it did. */
export const act = async (context: Context, stream: Stream, action: "pause" | "resume" | "remove"): Promise<boolean> => {
  const { client } = context
  if (action === "remove") {
    const sure = await confirmDialog(
      "Delete this stream?",
      `${nameOf(stream)} (${stream.url}) and its wallets, events and deliveries are deleted for good.`,
      "Delete the stream"
    )
    if (!sure) return false
  }
  const params = { params: { id: stream.id } }
  // Each action's request (answering something, for `attempt`: a delete answers nothing) and its word.
  const actions = {
    pause: [() => run(client.streams.pause(params)), "paused"],
    resume: [() => run(client.streams.resume({ ...params, payload: {} })), "resumed"],
    remove: [() => run(client.streams.remove(params)).then(() => true), "deleted"]
  } as const
  const [request, done] = actions[action]
  if ((await context.attempt((): Promise<unknown> => request())) === undefined) return false
  context.announce(`${nameOf(stream)}: ${done}.`, "ok")
  return true
}

/**
 * How far a chain's receiver is behind the chain's head (when the scans found it: not for Aptos)
 * and behind the batches made for it, in words; `late` while batches made wait to be delivered.
 */
export const behindOf = (chain: Stats["coverage"][number]): { readonly text: string; readonly late: boolean } => {
  const head = chain.head === null ? undefined : BigInt(chain.head)
  if (chain.coveredTo === null) {
    const atHead = head === undefined ? "" : `, head at block ${head}`
    return { text: `nothing delivered yet (batches made to ${chain.batchedTo}${atHead})`, late: false }
  }
  const covered = BigInt(chain.coveredTo)
  const behind = BigInt(chain.batchedTo) - covered
  // The head is recorded in the background: a receiver quicker than that is at the head.
  const toHead = head === undefined ? [] : [head > covered ? `${head - covered} behind the head (block ${head})` : "at the head"]
  const batches = behind > 0n ? `${behind} behind the batches made (to ${chain.batchedTo})` : "every batch made delivered"
  return { text: [`to block ${covered}`, ...toHead, batches].join(", "), late: behind > 0n }
}

/** The coverage of a stream per chain, in words. */
export const coverageOf = (stats: Stats | undefined) =>
  stats === undefined || stats.coverage.length === 0
    ? "—"
    : h("ul", { class: "plain" }, stats.coverage.map((chain) => {
      const { late, text } = behindOf(chain)
      return h("li", { class: late ? "bad" : undefined }, `${chain.chain}: ${text}`)
    }))

const row = (context: Context, stream: Stream, stats: Stats | undefined, refresh: () => Promise<void>) => {
  // Pause and Resume share a key: the focus stays on the button as it turns into the other.
  const button = (action: "pause" | "resume" | "remove", label: string, key: string, tone?: string) =>
    h("button", {
      type: "button",
      class: tone,
      "data-key": `${key}:${stream.id}`,
      "aria-label": `${label} ${nameOf(stream)}`,
      onclick: async () => {
        if (await act(context, stream, action)) await refresh()
      }
    }, label)
  return h("tr", {},
    h("th", { scope: "row", "data-label": "Stream" },
      h("a", { href: `#/streams/${stream.id}`, "data-key": `open:${stream.id}` }, nameOf(stream)),
      h("div", { class: "muted url" }, stream.url)),
    h("td", { "data-label": "State" }, statusBadge(stream.status), stream.statusReason === null ? null : h("div", { class: "reason" }, stream.statusReason)),
    h("td", { "data-label": "Success" }, stats === undefined ? "—" : percent(stats.successRate)),
    h("td", { "data-label": "Backlog" },
      stats === undefined ? "—" : `${count(stats.pending)} pending`,
      stats?.oldestPendingAgeSeconds === null || stats === undefined ? null : h("div", { class: "muted" }, `oldest ${age(stats.oldestPendingAgeSeconds)}`),
      stats !== undefined && stats.failed > 0 ? h("div", { class: "bad" }, `${count(stats.failed)} failed`) : null),
    h("td", { "data-label": "Last delivered" }, stats?.lastDeliveredSequence === null || stats === undefined ? "—" : `#${stats.lastDeliveredSequence}`),
    h("td", { "data-label": "Coverage" }, coverageOf(stats)),
    h("td", { "data-label": "Last error" },
      stats?.lastError === null || stats === undefined ? "—" : h("span", { class: "bad" }, stats.lastError),
      stats?.lastErrorAt === null || stats === undefined ? null : h("div", { class: "muted" }, time(stats.lastErrorAt))),
    h("td", { "data-label": "Actions", class: "actions" },
      stream.status === "paused" ? button("resume", "Resume", "toggle") : button("pause", "Pause", "toggle"),
      button("remove", "Delete", "remove", "danger")))
}

/** The list of streams. */
export const streamsView: View = (context, main) => {
  const { client } = context
  const table = h("div", { class: "table-region" }, h("p", { class: "muted" }, "Loading…"))
  const pager = pages("Pages of streams", ["Previous page", "Next page"], () => refresh())
  const latest = latestOnly()
  const refresh = async (): Promise<void> => {
    const read = await latest(context.attempt(async () => {
      const listed = await run(client.streams.list({ query: { limit: pageSize, ...pager.query() } }))
      const stats = await Promise.all(listed.streams.map((stream) =>
        context.attempt(() => run(client.streams.stats({ params: { id: stream.id } })), { quiet: true })))
      return { listed, stats }
    }, { quiet: true }))
    if (read === undefined) return
    const { listed, stats } = read
    pager.show(listed.nextCursor)
    patchIfChanged(table, JSON.stringify(read), () => [listed.streams.length === 0
      ? h("p", { class: "empty" }, "No stream here. ", h("a", { href: "#/new", "data-key": "empty-new" }, "Create a stream"), ".")
      : h("table", { class: "streams" },
        h("caption", { class: "visually-hidden" }, "Streams, their state and their deliveries"),
        h("thead", {}, h("tr", {}, ["Stream", "State", "Success", "Backlog", "Last delivered", "Coverage", "Last error", "Actions"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, listed.streams.map((stream, index) => row(context, stream, stats[index], refresh))))])
  }
  main.replaceChildren(
    h("section", { "aria-labelledby": "streams-title" },
      h("div", { class: "heading" },
        h("h1", { id: "streams-title" }, "Streams"),
        h("a", { class: "button primary", href: "#/new" }, "New stream")),
      table,
      pager.element)
  )
  return keepLive(refresh)
}
