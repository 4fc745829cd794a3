/**
 * A stream's deliveries, newest first, 25 a page (filtered by state if asked): each with its
 * sequence, state, events, coverage and attempts; opened, its attempts (when, status or error,
 * how long) and its body as sent, pretty and copyable. New deliveries appear without a reload.
 */
import { run } from "../api.js"
import type { Context, TabPart } from "../context.js"
import { h, patchIfChanged } from "../dom.js"
import { time } from "../format.js"
import { latestOnly } from "../live.js"
import { pages } from "../paging.js"
import type { Delivery, Detail, Stream } from "../model.js"
import { copyButton } from "./dialogs.js"
import { statusBadge } from "./status.js"

const pageSize = 25


const kindOf = (delivery: Delivery): string =>
  delivery.heartbeat ? "heartbeat" : delivery.resends > 0 ? `sent again ×${delivery.resends}` : delivery.replay ? "replay" : ""

const coverageText = (delivery: Delivery): string =>
  delivery.coverage.length === 0 ? "—" : delivery.coverage.map((range) => `${range.chain} ${range.from}–${range.to}`).join(", ")

/** The body, indented (as sent when it is not JSON, which would be a bug). */
const pretty = (body: string): string => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

const detailOf = (detail: Detail) =>
  h("div", { class: "detail" },
    h("h3", {}, "Attempts"),
    detail.attempts.length === 0
      ? h("p", { class: "muted" }, "Not sent yet.")
      : h("table", { class: "attempts" },
        h("thead", {}, h("tr", {}, ["When", "Answer", "Took"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, detail.attempts.map((attempt) =>
          h("tr", {},
            h("td", { "data-label": "When" }, time(attempt.at)),
            h("td", { "data-label": "Answer", class: attempt.delivered ? "good" : "bad" },
              attempt.status === null ? "" : `${attempt.status} `, attempt.error ?? (attempt.delivered ? "delivered" : "")),
            h("td", { "data-label": "Took" }, attempt.durationMs === null ? "—" : `${attempt.durationMs} ms`))))),
    h("div", { class: "body-heading" },
      h("h3", {}, "Body"),
      copyButton("Copy the body", detail.body, "body", `copy:${detail.delivery.id}`)),
    h("pre", { class: "body", tabindex: 0, "data-key": `body:${detail.delivery.id}`, "aria-label": `The body of batch ${detail.delivery.sequence}` }, pretty(detail.body)))

/** The deliveries tab of `stream`. */
export const deliveriesTab = (context: Context, stream: Stream): TabPart => {
  const { client } = context
  let status: "" | "pending" | "delivered" | "failed" = ""
  const open = new Map<string, Detail | undefined>()
  const list = h("div", { class: "table-region" }, h("p", { class: "muted" }, "Loading…"))
  const pager = pages("Pages of deliveries", ["Newer", "Older"], () => refresh())
  const latest = latestOnly()

  const refresh = async (): Promise<void> => {
    const listed = await latest(context.attempt(() =>
      run(client.streams.listDeliveries({
        params: { id: stream.id },
        query: { limit: pageSize, order: "newest", ...(status === "" ? {} : { status }), ...pager.query() }
      })), { quiet: true }))
    if (listed === undefined) return
    pager.show(listed.nextCursor)
    for (const [deliveryId, known] of open) {
      const now = listed.deliveries.find((delivery) => delivery.id === deliveryId)
      if (now !== undefined && (known === undefined || known.delivery.attempts !== now.attempts || known.delivery.status !== now.status)) {
        const detail = await context.attempt(() => run(client.streams.getDelivery({ params: { id: stream.id, deliveryId } })), { quiet: true })
        // Hidden while it was read: it stays hidden.
        if (open.has(deliveryId)) open.set(deliveryId, detail)
      }
    }
    patchIfChanged(list, JSON.stringify([listed, [...open.entries()]]), () => [listed.deliveries.length === 0
      ? h("p", { class: "empty" }, "No delivery here: they come with the wallets' first events (or a heartbeat).")
      : h("table", { class: "deliveries" },
        h("caption", { class: "visually-hidden" }, "Deliveries, newest first"),
        h("thead", {}, h("tr", {}, ["Batch", "State", "Events", "Coverage", "Attempts", "Made", "Delivered", "Last answer", ""].map((name) => h("th", { scope: "col" }, name)))),
        listed.deliveries.map((delivery) => {
          const shown = open.has(delivery.id)
          const detail = open.get(delivery.id)
          return h("tbody", { class: "delivery" },
            h("tr", {},
              h("th", { scope: "row", "data-label": "Batch" }, `#${delivery.sequence}`, h("div", { class: "muted" }, kindOf(delivery))),
              h("td", { "data-label": "State" }, statusBadge(delivery.status)),
              h("td", { "data-label": "Events" }, delivery.events),
              h("td", { "data-label": "Coverage" }, coverageText(delivery)),
              h("td", { "data-label": "Attempts" }, delivery.attempts),
              h("td", { "data-label": "Made" }, time(delivery.createdAt)),
              h("td", { "data-label": "Delivered" }, time(delivery.deliveredAt)),
              h("td", { "data-label": "Last answer", class: delivery.lastError === null ? undefined : "bad" },
                delivery.lastError ?? (delivery.lastStatus === null ? "—" : String(delivery.lastStatus))),
              h("td", { class: "actions" },
                h("button", {
                  type: "button",
                  "data-key": `show:${delivery.id}`,
                  "aria-expanded": shown ? "true" : "false",
                  "aria-controls": `detail-${delivery.id}`,
                  onclick: async () => {
                    if (open.has(delivery.id)) open.delete(delivery.id)
                    else open.set(delivery.id, undefined)
                    await refresh()
                  }
                }, shown ? "Hide" : "Attempts and body"))),
            shown
              ? h("tr", { id: `detail-${delivery.id}`, class: "detail-row" },
                h("td", { colspan: 9 }, detail === undefined ? h("p", { class: "muted" }, "Loading…") : detailOf(detail)))
              : null)
        }))])
  }

  const filter = h("select", {
    id: "delivery-status",
    onchange: (event: Event) => {
      status = (event.target as HTMLSelectElement).value as typeof status
      void pager.restart()
    }
  }, h("option", { value: "" }, "every state"), ["pending", "delivered", "failed"].map((value) => h("option", { value }, value)))

  return {
    element: h("section", { "aria-labelledby": "deliveries-title" },
      h("div", { class: "heading" },
        h("h2", { id: "deliveries-title" }, "Deliveries"),
        h("div", { class: "inline" }, h("label", { for: "delivery-status" }, "Show"), filter)),
      list,
      pager.element),
    refresh
  }
}
