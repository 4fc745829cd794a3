/**
 * A new stream: its settings, then its secret shown once, then the stream's page (where its
 * wallets are added).
 */
import { run } from "../api.js"
import type { View } from "../context.js"
import { h } from "../dom.js"
import { secretDialog } from "./dialogs.js"
import { creation, streamForm } from "./streamForm.js"

/** The form of a new stream. */
export const createView: View = (context, main) => {
  const form = streamForm(undefined, "Create the stream", async (settings) => {
    const created = await context.attempt(() =>
      run(context.client.streams.create({ payload: creation(settings) })), { refuse: form.refuse })
    if (created === undefined) return
    const verified = created.test === undefined
      ? "Add its wallets next."
      : created.test.delivered
      ? "The receiver took the test event: the stream is active. Add its wallets next."
      : `The receiver did not take the test event (${created.test.error ?? `status ${created.test.status}`}): the stream is held in error until it is resumed with verify.`
    await secretDialog("The stream's secret", created.secret, verified)
    context.navigate(`#/streams/${created.id}`)
  })
  main.replaceChildren(
    h("section", { "aria-labelledby": "create-title", class: "narrow" },
      h("h1", { id: "create-title" }, "New stream"),
      form.element)
  )
  main.querySelector<HTMLInputElement>("#url")?.focus()
}
