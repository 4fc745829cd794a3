/**
 * The sign-in: the API token typed once, exchanged for a session cookie the page cannot read
 * (`POST /v1/session`); the field is emptied at once and the token is kept nowhere.
 */
import { Redacted } from "effect"
import { ApiFailure, messageOf, run } from "../api.js"
import type { Client } from "../api.js"
import { h } from "../dom.js"

/** Shows the sign-in in `main`; calls `signedIn` with the session's CSRF token. */
export const signInView = (main: HTMLElement, client: Client, signedIn: (csrfToken: string) => void, notice?: string): void => {
  const error = h("p", { id: "sign-in-error", class: "error", role: "alert" }, notice ?? "")
  const token = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    required: true,
    spellcheck: "false",
    "aria-describedby": "sign-in-help sign-in-error"
  })
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const given = token.value
    token.value = ""
    error.textContent = ""
    try {
      const session = await run(client.session.signIn({ payload: { token: Redacted.make(given) } }))
      signedIn(session.csrfToken ?? "")
    } catch (failure) {
      error.textContent = failure instanceof ApiFailure && failure.kind === "unauthorized"
        ? "That is not the service's API token."
        : messageOf(failure)
      token.focus()
    }
  }
  main.replaceChildren(
    h("section", { class: "sign-in", "aria-labelledby": "sign-in-title" },
      h("h1", { id: "sign-in-title" }, "Sign in"),
      h("form", { onsubmit: submit },
        h("label", { for: "token" }, "API token"),
        token,
        h("p", { id: "sign-in-help", class: "help" }, "The service's --api-token. It is exchanged for a session cookie of 12 hours and kept nowhere."),
        error,
        h("button", { type: "submit", class: "primary" }, "Sign in")))
  )
  token.focus()
}
