/**
 * A stream's settings, changed as at creation (its confirmations are fixed), and its replay: every
 * event from a time or from an event id sent again in new batches, or the batches of a range of
 * sequences sent again as they were.
 */
import { messageOf, run } from "../api.js"
import type { Context, TabPart } from "../context.js"
import { h } from "../dom.js"
import { count } from "../format.js"
import type { Stream } from "../model.js"
import { changes, streamForm } from "./streamForm.js"

/** One way of replaying, as a radio button. */
const mode = (value: string, label: string, checked = false) =>
  h("label", { class: "choice" }, h("input", { type: "radio", name: "replay-from", value, checked }), label)

const replayForm = (context: Context, stream: Stream) => {
  const error = h("p", { class: "error", role: "alert" })
  const fromTime = h("input", { id: "replay-time", type: "datetime-local", step: 1 })
  const fromEvent = h("input", { id: "replay-event", type: "text", spellcheck: "false" })
  const fromSequence = h("input", { id: "replay-from-sequence", type: "number", min: 1 })
  const toSequence = h("input", { id: "replay-to-sequence", type: "number", min: 1 })
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    error.textContent = ""
    const chosen = (event.target as HTMLFormElement).querySelector<HTMLInputElement>('input[name="replay-from"]:checked')?.value
    const payload = chosen === "time"
      ? { fromTime: fromTime.value === "" ? "" : new Date(fromTime.value).toISOString() }
      : chosen === "event"
      ? { fromEventId: fromEvent.value.trim() }
      : { fromSequence: Number(fromSequence.value), ...(toSequence.value === "" ? {} : { toSequence: Number(toSequence.value) }) }
    const replayed = await context.attempt(() => run(context.client.streams.replay({ params: { id: stream.id }, payload })), {
      refuse: (failure) => {
        error.textContent = messageOf(failure)
      }
    })
    if (replayed === undefined) return
    context.announce(`Replay: ${count(replayed.deliveries)} batch${replayed.deliveries === 1 ? "" : "es"} with ${count(replayed.events)} events on their way.`)
  }
  return h("form", { class: "replay", onsubmit: submit, "aria-labelledby": "replay-title" },
    h("h2", { id: "replay-title" }, "Replay"),
    h("fieldset", { class: "field" },
      h("legend", {}, "Send again"),
      mode("time", "every event stored from a time on (new batches)", true),
      h("div", { class: "field" }, h("label", { for: "replay-time" }, "From (your local time)"), fromTime),
      mode("event", "every event from an event id on, that event included (new batches)"),
      h("div", { class: "field" }, h("label", { for: "replay-event" }, "Event id"), fromEvent),
      mode("sequence", "the batches of a range of sequences, as they were"),
      h("div", { class: "field inline" },
        h("label", { for: "replay-from-sequence" }, "From batch"), fromSequence,
        h("label", { for: "replay-to-sequence" }, "to batch"), toSequence)),
    error,
    h("button", { type: "submit", class: "primary" }, "Replay"))
}

/** The settings tab of `stream`; `changed` is called once the stream was changed. */
export const settingsTab = (context: Context, stream: Stream, changed: () => Promise<void>): TabPart => {
  // What the stream's settings are now: what a save compares with.
  let current = stream
  const form = streamForm(stream, "Save the settings", async (settings) => {
    const saved = await context.attempt(() =>
      run(context.client.streams.update({
        params: { id: stream.id },
        payload: changes(current, settings)
      })), { refuse: form.refuse })
    if (saved === undefined) return
    current = saved
    context.announce(saved.test === undefined || saved.test.delivered
      ? "Settings saved."
      : `Settings saved, but the receiver did not take the test event (${saved.test.error ?? `status ${saved.test.status}`}): the stream is held in error.`,
      saved.test === undefined || saved.test.delivered ? "ok" : "error")
    await changed()
  })
  return {
    element: h("div", { class: "settings" },
      h("section", { "aria-labelledby": "settings-title", class: "narrow" }, h("h2", { id: "settings-title" }, "Settings"), form.element),
      h("section", { class: "narrow" }, replayForm(context, stream)))
  }
}
