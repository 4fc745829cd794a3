/**
 * The console's page: signs in (or finds its session, on a reload), then shows the place the
 * address names after `#`: the streams (`#/`), a new stream (`#/new`), a stream
 * (`#/streams/<id>`, with `/deliveries`, `/wallets` or `/settings`). A 401 at any time (the session
 * ended, or another tab signed out) brings the sign-in back.
 */
import { ApiFailure, type Client, connect, run } from "./api.js"
import type { Context, View } from "./context.js"
import { h } from "./dom.js"
import { createView } from "./views/create.js"
import { signInView } from "./views/signIn.js"
import { streamView } from "./views/stream.js"
import { streamsView } from "./views/streams.js"

const main = document.getElementById("main") as HTMLElement
const status = document.getElementById("status") as HTMLElement
const account = document.getElementById("account") as HTMLElement

let leave: (() => void) | void = undefined
let signedInClient: Client | undefined

/** The view an address names, and what it is given. */
const route = (hash: string): { readonly view: View; readonly title: string } => {
  const stream = /^#\/streams\/(str_[0-9a-z]{21})(?:\/(deliveries|wallets|settings))?$/.exec(hash)
  if (stream !== null) return { view: streamView(stream[1]!, (stream[2] ?? "deliveries") as "deliveries" | "wallets" | "settings"), title: "Stream" }
  if (hash === "#/new") return { view: createView, title: "New stream" }
  return { view: streamsView, title: "Streams" }
}

const announce = (message: string, tone: "ok" | "error" = "ok") => {
  status.textContent = message
  status.className = `status ${tone}`
}

const signOut = async (notice?: string) => {
  leave?.()
  leave = undefined
  if (signedInClient !== undefined) {
    const client = signedInClient
    signedInClient = undefined
    if (notice === undefined) await run(client.session.signOut()).catch(() => undefined)
  }
  account.replaceChildren()
  announce(notice ?? "Signed out.", notice === undefined ? "ok" : "error")
  const anonymous = await connect("")
  document.title = "Sign in · chainquery console"
  signInView(main, anonymous, (csrfToken) => void signedIn(csrfToken), notice)
}

const show = (client: Client) => {
  leave?.()
  const { view, title } = route(location.hash)
  document.title = `${title} · chainquery console`
  const context: Context = {
    client,
    navigate: (hash) => {
      if (location.hash === hash) show(client)
      else location.hash = hash
    },
    announce,
    attempt: async (request, options) => {
      try {
        return await request()
      } catch (failure) {
        if (failure instanceof ApiFailure && failure.kind === "unauthorized") {
          void signOut("Your session ended: sign in again.")
        } else if (options?.refuse !== undefined) {
          options.refuse(failure)
        } else if (options?.quiet !== true) {
          announce(failure instanceof Error ? failure.message : String(failure), "error")
        }
        return undefined
      }
    }
  }
  main.replaceChildren()
  leave = view(context, main)
  main.focus({ preventScroll: true })
}

const signedIn = async (csrfToken: string) => {
  const client = await connect(csrfToken)
  signedInClient = client
  account.replaceChildren(
    h("nav", { "aria-label": "Console" }, h("a", { href: "#/" }, "Streams"), h("a", { href: "#/new" }, "New stream")),
    h("button", { type: "button", id: "sign-out", onclick: () => void signOut() }, "Sign out")
  )
  announce("Signed in.")
  show(client)
}

window.addEventListener("hashchange", () => {
  if (signedInClient !== undefined) show(signedInClient)
})

const start = async () => {
  const anonymous = await connect("")
  try {
    const session = await run(anonymous.session.current())
    if (session.via === "session" && session.csrfToken !== null) return signedIn(session.csrfToken)
  } catch {
    // Not signed in (a 401): the sign-in below.
  }
  signInView(main, anonymous, (csrfToken) => void signedIn(csrfToken))
}

void start()
