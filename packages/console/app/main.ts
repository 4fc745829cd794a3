/**
 * The console's page: signs in (or finds its session, on a reload), then shows the place the
 * address names after `#`: the streams (`#/`), a new stream (`#/new`), a stream
 * (`#/streams/<id>`, with `/deliveries`, `/wallets` or `/settings`). A 401 at any time (the session
 * ended, or another tab signed out) brings the sign-in back.
 */
import { ApiFailure, type Client, connect, messageOf, run } from "./api.js"
import type { Context, Tab, View } from "./context.js"
import { h } from "./dom.js"
import { createView } from "./views/create.js"
import { signInView } from "./views/signIn.js"
import { streamView } from "./views/stream.js"
import { streamsView } from "./views/streams.js"

const main = document.getElementById("main") as HTMLElement
const status = document.getElementById("status") as HTMLElement
const account = document.getElementById("account") as HTMLElement

/** The client before a sign-in: it reads and opens sessions. */
const anonymous = connect("")
/** How the browser is signed in now (a 401 when it is not). */
const currentSession = async () => run((await anonymous).session.current())

let leave: (() => void) | void = undefined
let signedInClient: Client | undefined
/** The context of the view shown: a request of a view left since is not acted on. */
let currentContext: Context | undefined

/** The view an address names, and what it is given. */
const route = (hash: string): { readonly view: View; readonly title: string } => {
  const stream = /^#\/streams\/(str_[0-9a-z]{21})(?:\/(deliveries|wallets|settings))?$/.exec(hash)
  if (stream !== null) return { view: streamView(stream[1]!, (stream[2] ?? "deliveries") as Tab), title: "Stream" }
  if (hash === "#/new") return { view: createView, title: "New stream" }
  return { view: streamsView, title: "Streams" }
}

const announce = (message: string, tone: "ok" | "error" = "ok") => {
  status.textContent = message
  status.className = `status ${tone}`
}

/** Shows the sign-in: after *Sign out* (`notice` absent), or because the session ended. */
const signOut = async (notice?: string) => {
  const client = signedInClient
  // Signed out already (several requests of a view may each find the session ended).
  if (client === undefined) return
  if (notice === undefined) {
    try {
      await run(client.session.signOut()).catch(async (failure: unknown) => {
        // Refused for a stale CSRF token (signed in again in another tab): the session's own, once more.
        if (!(failure instanceof ApiFailure && failure.kind === "forbidden")) throw failure
        const session = await currentSession()
        await run((await connect(session.csrfToken ?? "")).session.signOut())
      })
    } catch (failure) {
      // Not signed out unless the session is gone anyway: say why, and stay.
      if (!(failure instanceof ApiFailure && failure.kind === "unauthorized")) {
        announce(`Not signed out: ${messageOf(failure)}`, "error")
        return
      }
    }
  }
  signedInClient = undefined
  currentContext = undefined
  leave?.()
  leave = undefined
  account.replaceChildren()
  announce(notice ?? "Signed out.", notice === undefined ? "ok" : "error")
  document.title = "Sign in · chainquery console"
  signInView(main, await anonymous, (csrfToken) => void signedIn(csrfToken), notice)
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
        const answer = await request()
        // The reader went elsewhere meanwhile: the answer is for a view no longer shown.
        return currentContext === context ? answer : undefined
      } catch (failure) {
        if (currentContext !== context) return undefined
        if (failure instanceof ApiFailure && failure.kind === "unauthorized") {
          void signOut("Your session ended: sign in again.")
        } else if (failure instanceof ApiFailure && failure.kind === "forbidden") {
          void renewed()
        } else if (options?.refuse !== undefined) {
          options.refuse(failure)
        } else if (options?.quiet !== true) {
          announce(messageOf(failure), "error")
        }
        return undefined
      }
    }
  }
  currentContext = context
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

/**
 * A change refused for its CSRF token: the browser's session is another one now (signed in again
 * in another tab). Its token read again, the view is shown anew, to try again.
 */
const renewed = async () => {
  const session = await currentSession().catch(() => undefined)
  if (session?.via !== "session" || session.csrfToken === null) return signOut("Your session ended: sign in again.")
  signedInClient = await connect(session.csrfToken)
  show(signedInClient)
  announce("The session changed (signed in again elsewhere): nothing was changed, try again.", "error")
}

window.addEventListener("hashchange", () => {
  if (signedInClient !== undefined) show(signedInClient)
})

const start = async () => {
  try {
    const session = await currentSession()
    if (session.via === "session" && session.csrfToken !== null) return signedIn(session.csrfToken)
  } catch {
    // Not signed in (a 401): the sign-in below.
  }
  signInView(main, await anonymous, (csrfToken) => void signedIn(csrfToken))
}

void start()
