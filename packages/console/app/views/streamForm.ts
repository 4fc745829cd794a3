/**
 * A stream's settings as a form, to create a stream or change one: its URL, description, event
 * kinds, chains, confirmations (at creation only: they are fixed), content filter and whether to
 * verify the receiver first. A refusal of the API is shown next to the field it names.
 */
import { WatchEvent } from "@chainquery/watch"
import { chainNames, defaultEvents } from "@chainquery/watch-service/ManagementApi"
import { ApiFailure, messageOf } from "../api.js"
import { h } from "../dom.js"
import type { Stream } from "../model.js"

/** The form's values, as the API takes them. */
export interface Settings {
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<WatchEvent.Kind>
  readonly chains: ReadonlyArray<string>
  readonly confirmations: number
  readonly filters: { readonly contracts?: ReadonlyArray<string>; readonly minValue?: Record<string, string> } | null
  readonly verify: boolean
}

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((value) => b.includes(value))

/**
 * A new stream's settings as the API takes them: the event kinds and chains left out when they
 * are the API's own defaults (so that a stream of every chain stays one: chains added to the
 * service later are its too).
 */
export const creation = (settings: Settings) => ({
  url: settings.url,
  ...(sameSet(settings.events, defaultEvents) ? {} : { events: settings.events }),
  ...(sameSet(settings.chains, chainNames) ? {} : { chains: settings.chains }),
  confirmations: settings.confirmations,
  ...(settings.description === "" ? {} : { description: settings.description }),
  ...(settings.filters === null ? {} : { filters: settings.filters }),
  ...(settings.verify ? { verify: true } : {})
})

/**
 * What changed from `stream`'s settings, as a PATCH takes it: only those fields (a stream of every
 * chain, its chains untouched, stays one), and `verify` when asked.
 */
export const changes = (stream: Stream, settings: Settings) => {
  const filtersBefore = JSON.stringify({ contracts: stream.filters?.contracts ?? null, minValue: stream.filters?.minValue ?? null })
  const filtersNow = JSON.stringify({ contracts: settings.filters?.contracts ?? null, minValue: settings.filters?.minValue ?? null })
  return {
    ...(settings.url === stream.url ? {} : { url: settings.url }),
    ...(settings.description === stream.description ? {} : { description: settings.description }),
    ...(sameSet(settings.events, stream.events) ? {} : { events: settings.events }),
    ...(sameSet(settings.chains, stream.chains) ? {} : { chains: settings.chains }),
    ...(filtersBefore === filtersNow ? {} : { filters: settings.filters }),
    ...(settings.verify ? { verify: true } : {})
  }
}

/** The form's pieces: the element, and how to show a refusal. */
export interface StreamForm {
  readonly element: HTMLFormElement
  /** Shows `failure` next to its field (or above the button), and moves the focus there. */
  readonly refuse: (failure: unknown) => void
}

const lines = (text: string): ReadonlyArray<string> => text.split("\n").map((line) => line.trim()).filter((line) => line !== "")

/** The field an API's `field` names (`events[2]` is `events`, `filters.minValue.eth` is `minValue`). */
const fieldOf = (field: string): string => {
  const head = field.replace(/\[\d+\]$/, "").split(".")
  return head[0] === "filters" ? head[1] ?? "contracts" : head[0] ?? field
}

/** The values of the boxes named `name` that are ticked in `form`. */
const chosen = (form: HTMLFormElement, name: string): Array<string> =>
  [...form.querySelectorAll<HTMLInputElement>(`input[name="${name}"]:checked`)].map((input) => input.value)

/** The form for a new stream (`stream` absent) or for `stream`'s settings; `submit` gets them. */
export const streamForm = (stream: Stream | undefined, submitLabel: string, submit: (settings: Settings) => Promise<void>): StreamForm => {
  const errors = new Map<string, HTMLElement>()
  const errorSlot = (name: string) => {
    const slot = h("p", { id: `${name}-error`, class: "error field-error", "aria-live": "polite" })
    errors.set(name, slot)
    return slot
  }
  const field = (name: string, label: string, control: HTMLElement, help?: string) => {
    control.setAttribute("id", name)
    control.setAttribute("aria-describedby", `${name}-help ${name}-error`)
    return h("div", { class: "field" }, h("label", { for: name }, label), control, h("p", { id: `${name}-help`, class: "help" }, help ?? ""), errorSlot(name))
  }
  const checkboxes = (name: string, legend: string, values: ReadonlyArray<string>, checked: ReadonlySet<string>, help: string) =>
    h("fieldset", { class: "field choices", id: name, "aria-describedby": `${name}-help ${name}-error` },
      h("legend", {}, legend),
      h("div", { class: "choice-list" },
        values.map((value) => h("label", { class: "choice" }, h("input", { type: "checkbox", name, value, checked: checked.has(value) }), value))),
      h("p", { id: `${name}-help`, class: "help" }, help),
      errorSlot(name))

  const url = h("input", { name: "url", type: "url", required: true, value: stream?.url ?? "", placeholder: "https://example.com/hooks/chainquery" })
  const description = h("input", { name: "description", type: "text", maxlength: 500, value: stream?.description ?? "" })
  const confirmations = h("input", { name: "confirmations", type: "number", min: 0, max: 64, value: stream?.confirmations ?? 0, disabled: stream !== undefined })
  const contracts = h("textarea", { name: "contracts", rows: 3, spellcheck: "false" }, (stream?.filters?.contracts ?? []).join("\n"))
  const minValue = h("textarea", { name: "minValue", rows: 2, spellcheck: "false" },
    Object.entries(stream?.filters?.minValue ?? {}).map(([chain, value]) => `${chain}=${value}`).join("\n"))
  const verify = h("input", { id: "verify", name: "verify", type: "checkbox", checked: stream === undefined })
  const general = h("p", { class: "error", role: "alert" })

  const element = h("form", { class: "stream-form", novalidate: true },
    field("url", "Webhook URL", url, "Where the stream's batches are POSTed, signed with its secret."),
    field("description", "Description", description, "A note of yours, at most 500 characters."),
    checkboxes("events", "Event kinds", WatchEvent.kinds, new Set(stream?.events ?? defaultEvents), "At least one."),
    checkboxes("chains", "Chains", chainNames, new Set(stream?.chains ?? chainNames), "At least one."),
    field("confirmations", "Confirmations", confirmations, stream === undefined
      ? "How deep a block must be before its events are sent, 0 to 64. Fixed once the stream exists."
      : "Fixed at creation."),
    field("contracts", "Only these contracts", contracts, "One per line: EVM contract addresses, Aptos collection ids. Empty: any contract."),
    field("minValue", "Least trade price per chain", minValue, "One per line, chain=value in the price token's smallest unit (eth=1000000000000000000). Empty: any."),
    h("div", { class: "field inline" }, verify, h("label", { for: "verify" }, "Send the receiver a test event first (the stream is active only if it answers 2xx)")),
    general,
    h("button", { type: "submit", class: "primary" }, submitLabel))

  const settings = (): Settings => {
    const listed = lines(contracts.value)
    const values = lines(minValue.value)
    const filters = listed.length === 0 && values.length === 0 ? null : {
      ...(listed.length === 0 ? {} : { contracts: listed }),
      ...(values.length === 0 ? {} : {
        minValue: Object.fromEntries(values.map((line) => {
          const at = line.indexOf("=")
          return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1).trim()]
        }))
      })
    }
    return {
      url: url.value.trim(),
      description: description.value,
      events: chosen(element, "events") as ReadonlyArray<WatchEvent.Kind>,
      chains: chosen(element, "chains"),
      confirmations: Number(confirmations.value),
      filters,
      verify: verify.checked
    }
  }

  const refuse = (failure: unknown) => {
    for (const slot of errors.values()) slot.textContent = ""
    general.textContent = ""
    const named = failure instanceof ApiFailure ? failure.field : undefined
    const name = named === undefined ? undefined : fieldOf(named)
    const slot = name === undefined ? undefined : errors.get(name)
    if (slot === undefined) {
      general.textContent = messageOf(failure)
      return
    }
    slot.textContent = `${named}: ${messageOf(failure)}`
    element.querySelector<HTMLElement>(`#${name}`)?.focus()
  }

  element.addEventListener("submit", (event) => {
    event.preventDefault()
    void submit(settings())
  })
  return { element, refuse }
}
