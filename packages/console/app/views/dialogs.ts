/**
 * The console's dialogs, on the browser's own `<dialog>` (modal, the focus kept inside, Escape
 * cancels): a confirmation before what cannot be undone, and a secret shown once. However a dialog
 * closes (its buttons, Escape, a phone's Back), it answers, leaves the page, and the focus goes back
 * to what opened it (found again by its `data-key`, live updates having redrawn it meanwhile).
 */
import { h } from "../dom.js"

/**
 * Shows `dialog` modally; `answered` runs once, when it closes however it does, before the
 * dialog leaves the page and the focus goes back.
 */
const showModal = (dialog: HTMLDialogElement, answered: () => void): void => {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement.dataset["key"] : undefined
  dialog.addEventListener("close", () => {
    answered()
    dialog.remove()
    if (opener !== undefined) document.querySelector<HTMLElement>(`[data-key="${CSS.escape(opener)}"]`)?.focus()
  }, { once: true })
  document.body.append(dialog)
  dialog.showModal()
  dialog.querySelector<HTMLButtonElement>("button")?.focus()
}

/** Asks `question`; answers whether `action` was chosen (Cancel and Escape answer `false`). */
export const confirmDialog = (title: string, question: string, action: string): Promise<boolean> =>
  new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "dialog-title" })
    let chosen = false
    const close = (answer: boolean) => {
      chosen = answer
      dialog.close()
    }
    dialog.append(
      h("h2", { id: "dialog-title" }, title),
      h("p", {}, question),
      h("div", { class: "actions" },
        h("button", { type: "button", onclick: () => close(false) }, "Cancel"),
        h("button", { type: "button", class: "danger", onclick: () => close(true) }, action))
    )
    showModal(dialog, () => resolve(chosen))
  })

/** Copies `text` to the clipboard; answers whether it could. */
const copy = async (text: string): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}

/**
 * A button that copies `text` (the `what` of something), and the status beside it that says
 * whether it could (or asks the reader to select `what` and copy it).
 */
export const copyButton = (label: string, text: string, what: string, key?: string): readonly [HTMLButtonElement, HTMLSpanElement] => {
  const status = h("span", { role: "status", class: "copied" })
  const button = h("button", {
    type: "button",
    "data-key": key,
    onclick: async () => {
      status.textContent = (await copy(text)) ? "Copied." : `Select the ${what} and copy it.`
    }
  }, label)
  return [button, status]
}

/**
 * A stream's secret, shown this once (at creation, at rotation): the service keeps it sealed and
 * never answers it again. Closed by its button; the secret leaves the page with it.
 */
export const secretDialog = (title: string, secret: string, note: string): Promise<void> =>
  new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "secret-title" })
    const close = () => dialog.close()
    dialog.append(
      h("h2", { id: "secret-title" }, title),
      h("p", {}, "Give this secret to the receiver now: it is shown this once."),
      h("code", { class: "secret", id: "secret-value" }, secret),
      h("p", { class: "help" }, note),
      h("div", { class: "actions" },
        copyButton("Copy the secret", secret, "secret"),
        h("button", { type: "button", class: "primary", onclick: close }, "I have kept it"))
    )
    // Escape asks for the button (the secret is not shown again); a close the page cannot stop
    // (a phone's Back) answers all the same.
    dialog.addEventListener("cancel", (event) => event.preventDefault())
    showModal(dialog, resolve)
  })
