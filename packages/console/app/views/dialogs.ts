/**
 * The console's dialogs, on the browser's own `<dialog>` (modal, the focus kept inside, Escape
 * cancels): a confirmation before what cannot be undone, and a secret shown once.
 */
import { h } from "../dom.js"

/** Asks `question`; answers whether `action` was chosen (Cancel and Escape answer `false`). */
export const confirmDialog = (title: string, question: string, action: string): Promise<boolean> =>
  new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "dialog-title" })
    const close = (answer: boolean) => {
      dialog.close()
      dialog.remove()
      resolve(answer)
    }
    dialog.append(
      h("h2", { id: "dialog-title" }, title),
      h("p", {}, question),
      h("div", { class: "actions" },
        h("button", { type: "button", onclick: () => close(false) }, "Cancel"),
        h("button", { type: "button", class: "danger", onclick: () => close(true) }, action))
    )
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault()
      close(false)
    })
    document.body.append(dialog)
    dialog.showModal()
    dialog.querySelector<HTMLButtonElement>("button")?.focus()
  })

/** Copies `text` to the clipboard; answers whether it could. */
export const copy = async (text: string): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    return false
  }
}

/**
 * A stream's secret, shown this once (at creation, at rotation): the service keeps it sealed and
 * never answers it again. Closed by its button; the secret leaves the page with it.
 */
export const secretDialog = (title: string, secret: string, note: string): Promise<void> =>
  new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "secret-title" })
    const status = h("span", { role: "status", class: "copied" })
    const close = () => {
      dialog.close()
      dialog.remove()
      resolve()
    }
    dialog.append(
      h("h2", { id: "secret-title" }, title),
      h("p", {}, "Give this secret to the receiver now: it is shown this once."),
      h("code", { class: "secret", id: "secret-value" }, secret),
      h("p", { class: "help" }, note),
      h("div", { class: "actions" },
        h("button", {
          type: "button",
          onclick: async () => {
            status.textContent = (await copy(secret)) ? "Copied." : "Select the secret and copy it."
          }
        }, "Copy the secret"),
        status,
        h("button", { type: "button", class: "primary", onclick: close }, "I have kept it"))
    )
    dialog.addEventListener("cancel", (event) => event.preventDefault())
    document.body.append(dialog)
    dialog.showModal()
    dialog.querySelector<HTMLButtonElement>("button")?.focus()
  })
