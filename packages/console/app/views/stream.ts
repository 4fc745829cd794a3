/**
 * A stream: its state and why, its receiver's numbers (success rate, backlog, last delivered
 * sequence, coverage per chain and how far behind, last error), the last hour charted, its
 * actions (pause, resume, a test event, a new secret, delete), and three tabs: its deliveries,
 * its wallets, its settings. Live: refreshed every 2 seconds (the charts every 10).
 */
import { run } from "../api.js"
import { barChart, lineChart } from "../chart.js"
import type { Tab, TabPart, View } from "../context.js"
import { h, patch, patchIfChanged } from "../dom.js"
import { age, count, percent, time } from "../format.js"
import { keepLive, latestOnly } from "../live.js"
import type { Stats, Stream } from "../model.js"
import { deliveriesTab } from "./deliveries.js"
import { confirmDialog, secretDialog } from "./dialogs.js"
import { settingsTab } from "./settings.js"
import { nameOf, statusBadge } from "./status.js"
import { act, coverageOf } from "./streams.js"
import { walletsTab } from "./wallets.js"

/** An action's button: `data-key` keeps the keyboard's place across live updates. */
const button = (label: string, key: string, onclick: () => Promise<void>, tone?: string) =>
  h("button", { type: "button", class: tone, "data-key": key, onclick: () => void onclick() }, label)

const tabs: ReadonlyArray<readonly [Tab, string]> = [["deliveries", "Deliveries"], ["wallets", "Wallets"], ["settings", "Settings and replay"]]

/** How often the charts are read again (each reads the last hour). */
const chartsEvery = 10_000

const numbers = (stats: Stats) =>
  h("dl", { class: "numbers" },
    h("div", {}, h("dt", {}, "Success rate"), h("dd", {}, percent(stats.successRate), h("span", { class: "muted" }, ` of ${count(stats.attempts)} attempts`))),
    h("div", {}, h("dt", {}, "Pending"), h("dd", {}, count(stats.pending),
      stats.oldestPendingAgeSeconds === null ? null : h("span", { class: "muted" }, `, oldest ${age(stats.oldestPendingAgeSeconds)}`))),
    h("div", {}, h("dt", {}, "Failed"), h("dd", { class: stats.failed > 0 ? "bad" : undefined }, count(stats.failed))),
    h("div", {}, h("dt", {}, "Last delivered"), h("dd", {}, stats.lastDeliveredSequence === null ? "—" : `#${stats.lastDeliveredSequence}`)),
    h("div", {}, h("dt", {}, "Filtered out"), h("dd", {}, count(stats.filteredEvents))),
    h("div", { class: "wide" }, h("dt", {}, "Coverage"), h("dd", {},
      stats.coverage.length === 0 ? "no wallet yet" : coverageOf(stats))),
    h("div", { class: "wide" }, h("dt", {}, "Last error"), h("dd", {},
      stats.lastError === null ? "none" : h("span", { class: "bad" }, stats.lastError),
      stats.lastErrorAt === null ? null : h("span", { class: "muted" }, ` (${time(stats.lastErrorAt)})`))))

/** The page of the stream `id`, on `tab`. */
export const streamView = (id: string, tab: Tab): View => (context, main) => {
  const { client } = context
  const header = h("div", { class: "stream-header" }, h("h1", { id: "stream-title" }, id))
  const summary = h("section", { class: "summary", "aria-label": "The receiver's numbers" }, h("p", { class: "muted" }, "Loading…"))
  const charts = h("section", { class: "charts", "aria-label": "The last hour" })
  const panel = h("div", { class: "tab-panel", id: "tab-panel", role: "region", "aria-labelledby": `tab-${tab}` })
  let stream: Stream | undefined
  let part: TabPart | undefined
  let chartsReadAt = 0
  const latest = latestOnly()

  const actions = (current: Stream) => {
    return h("div", { class: "actions", role: "group", "aria-label": "Actions" },
      // One key for both: the focus stays on the button as it turns into the other.
      button(current.status === "paused" ? "Resume" : "Pause", "toggle", async () => {
        if (await act(context, current, current.status === "paused" ? "resume" : "pause")) await refresh()
      }),
      button("Send a test event", "test", async () => {
        const result = await context.attempt(() => run(client.streams.test({ params: { id } })))
        if (result === undefined) return
        context.announce(
          result.delivered
            ? `Test event delivered: the receiver answered ${result.status} in ${result.durationMs} ms.`
            : `Test event not delivered: ${result.error ?? `the receiver answered ${result.status}`}.`,
          result.delivered ? "ok" : "error"
        )
      }),
      button("Rotate the secret", "rotate", async () => {
        const sure = await confirmDialog(
          "Rotate the secret?",
          "A new secret signs every webhook from now on; the current one signs them too for 24 hours, while the receiver changes over.",
          "Rotate the secret"
        )
        if (!sure) return
        const rotated = await context.attempt(() => run(client.streams.rotateSecret({ params: { id }, payload: {} })))
        if (rotated === undefined) return
        await secretDialog("The stream's new secret", rotated.secret, "The old secret keeps signing too until the grace ends.")
        await refresh()
      }),
      button("Delete", "remove", async () => {
        if (await act(context, current, "remove")) context.navigate("#/")
      }, "danger"))
  }

  const refresh = async (): Promise<void> => {
    const read = await latest(context.attempt(() => Promise.all([run(client.streams.get({ params: { id } })), run(client.streams.stats({ params: { id } }))]), { quiet: true }))
    if (read === undefined) {
      if (stream === undefined) patch(summary, h("p", { class: "error" }, "This stream could not be read (deleted?). ", h("a", { href: "#/" }, "All streams"), "."))
      return
    }
    const [current, stats] = read
    const first = stream === undefined
    stream = current
    document.title = `${nameOf(current)} · chainquery console`
    patchIfChanged(header, JSON.stringify(current), () => [
      h("p", { class: "crumbs" }, h("a", { href: "#/", "data-key": "crumb" }, "Streams"), " / ", current.id),
      h("h1", { id: "stream-title" }, nameOf(current), " ", statusBadge(current.status)),
      current.statusReason === null ? null : h("p", { class: current.status === "error" ? "reason bad" : "reason" }, current.statusReason),
      h("p", { class: "muted url" }, `${current.url} · ${current.chains.length} chain${current.chains.length === 1 ? "" : "s"} · ${current.events.join(", ")}`),
      actions(current)])
    patchIfChanged(summary, JSON.stringify(stats), () => [numbers(stats)])
    if (first) mountTab(current)
    if (Date.now() - chartsReadAt >= chartsEvery) {
      chartsReadAt = Date.now()
      const activity = await context.attempt(() => run(client.streams.activity({ params: { id } })), { quiet: true })
      if (activity !== undefined) {
        const labels = ["60 min ago", "now"] as const
        patchIfChanged(charts, JSON.stringify(activity), () => [
          barChart("Batches delivered per minute", activity.minutes.map((minute) => minute.delivered), labels),
          lineChart("Coverage lag (seconds behind the scans)", activity.minutes.map((minute) => minute.coverageLagSeconds), " s", labels)])
      }
    }
    await part?.refresh?.()
  }

  const mountTab = (current: Stream) => {
    part = tab === "deliveries" ? deliveriesTab(context, current) : tab === "wallets" ? walletsTab(context, current) : settingsTab(context, current, refresh)
    patch(panel, part.element)
  }

  main.replaceChildren(
    h("article", { "aria-labelledby": "stream-title" },
      header,
      summary,
      charts,
      h("nav", { class: "tabs", "aria-label": "Parts of the stream" },
        tabs.map(([name, label]) =>
          h("a", { id: `tab-${name}`, href: `#/streams/${id}/${name}`, "aria-current": name === tab ? "page" : undefined }, label))),
      panel)
  )
  return keepLive(refresh)
}
