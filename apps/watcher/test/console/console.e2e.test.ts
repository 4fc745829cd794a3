/**
 * The console in a real browser (Chromium, `playwright-core`) against `chainquery-watcher serve` on
 * the simulator and a real PostgreSQL, delivering to a receiver on 127.0.0.1 that checks every
 * request with the receiver kit. An operator's flows, each page checked by axe-core (nothing
 * serious or critical) and kept as a screenshot: sign in; create a stream; add a busy wallet (a
 * bad line refused beside its line number), find it by part of its address, add and remove
 * another; see its first delivery appear with no reload; open it (attempts, body, copied); the
 * last hour charted; make the receiver fail and see the error and how far behind the head it is;
 * deliveries by state; replay (a range, an event id); pause and resume; at phone width and in the
 * dark. And what keeps it safe: a wrong token refused; the token in no storage,
 * URL or page source; a cross-site form post changing nothing; the pages refused after sign-out;
 * not one request leaving the service's origin; the script and stylesheet under 200 KB compressed.
 */
import { Effect } from "effect"
import { afterAll, afterEach, assert, beforeAll, describe, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { type Sim, sleep, startSimulator } from "../e2e/support/e2e.js"
import { ProvingReceiver } from "../service/support/provingReceiver.js"
import { apiToken, call, freshDatabase, serveArgs, type Service, startService, until } from "../service/support/serveE2e.js"
import { patientFlags } from "../service/support/streamsScenario.js"
import { axe, launch, recordRequests, screenshot, serious } from "./support/browser.js"

const cleanups: Array<() => Promise<void>> = []
let sim: Sim
let service: Service
let receiver: ProvingReceiver
let browser: Browser

beforeAll(async () => {
  const running = await startSimulator({ seed: 4301, indexing: false, chains: ["0x1"] })
  cleanups.push(running.close)
  sim = running.sim
  const database = await freshDatabase()
  cleanups.push(database.drop)
  receiver = new ProvingReceiver()
  await receiver.start()
  cleanups.push(() => receiver.close())
  service = await startService(database.url, serveArgs(sim, patientFlags("1h")))
  cleanups.push(async () => void (await service.process.stop("SIGKILL")))
  // Listening comes before ready (the HTTP server answers 503 "starting" until the service is up).
  const started = Date.now()
  await until("the service ready", async () => (await fetch(`${service.url}/readyz`).catch(() => undefined))?.status === 200, 90_000).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${service.process.stderr.slice(-4000)}`)
  })
  console.log(`the service was ready ${Date.now() - started} ms after it listened`)
  browser = await launch()
  cleanups.push(() => browser.close())
}, 120_000)

afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup().catch(() => undefined)
}, 60_000)

/** The pages of the test running, shot when it fails (what the page showed is the first clue). */
const pages: Array<Page> = []
afterEach(async (context) => {
  if (context.task.result?.state === "fail") {
    for (const [index, page] of pages.entries()) await screenshot(page, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, "-")}-${index}`).catch(() => undefined)
  }
  pages.length = 0
})

/** A new browser context (its own cookies) and page, each request it makes recorded. */
const freshPage = async (options?: { readonly width?: number; readonly height?: number; readonly dark?: boolean }) => {
  const context: BrowserContext = await browser.newContext({
    viewport: { width: options?.width ?? 1280, height: options?.height ?? 800 },
    colorScheme: options?.dark === true ? "dark" : "light"
  })
  cleanups.push(() => context.close())
  const page = await context.newPage()
  page.setDefaultTimeout(60_000)
  pages.push(page)
  // What goes wrong in the page is said in the test's output (an uncaught error is a bug of the console).
  page.on("pageerror", (error) => console.log(`page error: ${error.message}`))
  page.on("console", (message) => {
    if (message.type() === "error") console.log(`page console: ${message.text()}`)
  })
  const requests = recordRequests(page)
  return { context, page, requests }
}

/** Signs in on `page` (at the console) by the keyboard: the token typed, Enter pressed. */
const signIn = async (page: Page, token = apiToken) => {
  await page.goto(`${service.url}/console`)
  await page.locator("#token").waitFor()
  await page.keyboard.type(token)
  await page.keyboard.press("Enter")
}

/** No serious or critical axe violation on `page`, named `what`; and its screenshot. */
const checked = async (page: Page, what: string) => {
  const found = serious(await axe(page))
  assert.deepStrictEqual(found, [], `${what}: ${JSON.stringify(found, null, 1)}`)
  await screenshot(page, what)
}

/** Advances the simulator a block every 300 ms until `condition` holds (at most `timeoutMs`). */
const advanceUntil = async (what: string, condition: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await Effect.runPromise(sim.advance(1))
    await sleep(300)
  }
}

/** Whether every request went to the service's own origin. */
const homeOnly = (requests: ReadonlyArray<string>) => requests.filter((url) => !url.startsWith(`${service.url}/`) && !url.startsWith("data:"))

describe("the console in a real browser", () => {
  it("an operator's flows: sign in, create a stream, add a wallet, see deliveries live, open one, a failing receiver, replay, settings, pause and resume, a test event, a new secret, delete asked", async () => {
    const { context, page, requests } = await freshPage()
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.url })
    await page.goto(`${service.url}/console`)
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    await checked(page, "1-sign-in")
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    await page.getByText("No stream here.").waitFor()
    await checked(page, "2-streams-empty")

    // A new stream to the receiver, on eth only, its receiver not verified first (it does not know the secret yet).
    await page.getByRole("link", { name: "New stream" }).first().click()
    await page.getByLabel("Webhook URL").fill(receiver.url)
    await page.getByLabel("Description").fill("Busy wallet on eth")
    for (const box of await page.locator('input[name="chains"]').all()) {
      if ((await box.getAttribute("value")) !== "eth") await box.uncheck()
    }
    await page.getByLabel(/Send the receiver a test event first/).uncheck()
    await checked(page, "3-new-stream")
    await page.getByRole("button", { name: "Create the stream" }).click()
    const secret = await page.locator("#secret-value").textContent()
    assert.match(secret ?? "", /^whsec_/)
    await checked(page, "4-secret-shown-once")
    await page.getByRole("button", { name: "I have kept it" }).click()
    await page.getByRole("heading", { name: /Busy wallet on eth/ }).waitFor()
    const streamId = /#\/streams\/(str_[0-9a-z]{21})/.exec(page.url())![1]!
    receiver.secrets.set(streamId, secret!)
    assert.strictEqual((await call(service, "GET", `/v1/streams/${streamId}`)).body.chains.join(), "eth")

    // Wallets: a bad line refused beside its number, nothing added; then the busy wallet alone.
    await page.getByRole("link", { name: "Wallets" }).click()
    const busy = busiestEvm(sim, "0x1", 1)[0]!.address
    await page.getByLabel("Add wallets").fill(`eth:${busy}\n\neth:0xnot-an-address`)
    await page.getByRole("button", { name: "Add the wallets" }).click()
    await page.getByText(/Line 3/).waitFor()
    assert.match(await page.locator(".line-errors").innerText(), /Line 3 eth:0xnot-an-address: /)
    assert.strictEqual((await call(service, "GET", `/v1/streams/${streamId}/wallets`)).body.wallets.length, 0, "one bad line: nothing added")
    await checked(page, "5-wallets-refused-line")
    await page.getByLabel("Add wallets").fill(`eth:${busy}`)
    await page.getByRole("button", { name: "Add the wallets" }).click()
    await page.locator(".wallets code", { hasText: busy.toLowerCase() }).waitFor()
    // Found by part of its address, in any case; a part no wallet has finds none.
    await page.getByLabel("Find").fill("0x" + "f".repeat(30))
    await page.getByText(/No wallet whose address contains/).waitFor()
    await page.getByLabel("Find").fill(busy.slice(8, 20).toUpperCase())
    await page.locator(".wallets code", { hasText: busy.toLowerCase() }).waitFor()
    await page.getByLabel("Find").fill("")
    // Another wallet added, then removed by its button.
    const other = "0x" + "ab".repeat(20)
    await page.getByLabel("Add wallets").fill(`eth:${other}`)
    await page.getByRole("button", { name: "Add the wallets" }).click()
    await page.getByRole("button", { name: `Remove eth:${other}` }).click()
    await page.locator(".wallets code", { hasText: other }).waitFor({ state: "detached" })
    assert.deepStrictEqual((await call(service, "GET", `/v1/streams/${streamId}/wallets`)).body.wallets, [`eth:${busy.toLowerCase()}`])

    // Deliveries: the first one appears without a reload while blocks come.
    let navigations = 0
    page.on("framenavigated", () => navigations++)
    await page.getByRole("link", { name: "Deliveries" }).click()
    const before = navigations
    await advanceUntil("a delivery with events in the page", async () =>
      (await page.locator("tbody.delivery td[data-label='Events']").allInnerTexts()).some((text) => Number(text) > 0))
    assert.isAtMost(navigations - before, 0, "no reload")
    await checked(page, "6-deliveries-live")
    // Open the first delivery with events: its attempts and body.
    const row = page.locator("tbody.delivery").filter({ has: page.locator("td[data-label='Events']", { hasNotText: /^0$/ }) }).last()
    await row.getByRole("button", { name: "Attempts and body" }).focus()
    await page.keyboard.press("Enter")
    await row.locator("pre.body").waitFor()
    const body = JSON.parse(await row.locator("pre.body").innerText())
    assert.strictEqual(body.streamId, streamId)
    assert.isAbove(body.events.length, 0)
    assert.include(await row.locator("table.attempts").innerText(), "200")
    // Copied: the body as the receiver got it.
    await row.getByRole("button", { name: "Copy the body" }).click()
    await row.getByText("Copied.").waitFor()
    assert.deepStrictEqual(JSON.parse(await page.evaluate<string>("navigator.clipboard.readText()")), body)
    await checked(page, "7-delivery-opened")
    // The chart of the last hour counts the batches delivered (read again every 10 s), a bar a minute.
    const deliveredChart = page.getByRole("img", { name: /^Batches delivered per minute/ })
    await advanceUntil("the chart counting a delivered batch", async () =>
      Number(/: (\d+) in all/.exec((await deliveredChart.getAttribute("aria-label")) ?? "")?.[1] ?? 0) > 0)
    assert.strictEqual(await deliveredChart.locator("rect.bar").count(), 60)

    // The receiver fails: the state and the error show.
    receiver.policy = () => 500
    await advanceUntil("the error in the page", async () => (await page.locator(".summary").innerText()).includes("500"))
    assert.match(await page.locator(".summary").innerText(), /Last error\s*\n?.*500/)
    await checked(page, "8-receiver-failing")
    // The coverage says how far the receiver is behind the chain's head, as the scans found it:
    // the head moves on while the receiver fails.
    const summary = () => page.locator(".summary").innerText()
    const behindHead = async () => {
      const said = /eth: to block (\d+), (\d+) behind the head \(block (\d+)\)/.exec(await summary())
      return said === null ? undefined : said.slice(1).map((n) => BigInt(n))
    }
    await advanceUntil("the receiver behind the head", async () => ((await behindHead())?.[1] ?? 0n) > 0n)
    const [covered, behind, head] = (await behindHead())!
    assert.strictEqual(head! - covered!, behind, `${behind} behind: the head ${head} less the block covered ${covered}`)
    assert.isTrue(head! <= BigInt(sim.world.evm.indexedHead("0x1")), `head ${head} at most the simulator's ${sim.world.evm.indexedHead("0x1")}`)
    const stats = (await call(service, "GET", `/v1/streams/${streamId}/stats`)).body
    assert.isTrue(BigInt(stats.coverage[0].head) >= head!, "the API's head, at least the one the page showed")
    // The deliveries by state: with some not delivered, only the delivered ones shown, then all again.
    const states = () => page.locator("tbody.delivery td[data-label='State']").allInnerTexts()
    await until("a batch not delivered in the list", async () => (await states()).some((state) => state !== "delivered"), 30_000)
    await page.getByLabel("Show").selectOption("delivered")
    await until("only delivered batches shown", async () => {
      const shown = await states()
      return shown.length > 0 && shown.every((state) => state === "delivered")
    }, 30_000)
    await page.getByLabel("Show").selectOption("")
    receiver.policy = () => "take"

    // Replay the first batch as it was, from the settings tab.
    await page.getByRole("link", { name: "Settings and replay" }).click()
    await page.getByLabel("the batches of a range of sequences, as they were").check()
    await page.getByLabel("From batch").fill("1")
    await page.getByLabel("to batch").fill("1")
    await page.getByRole("button", { name: "Replay", exact: true }).click()
    await page.getByText(/Replay: 1 batch/).waitFor()
    await checked(page, "9-settings-replay")
    await until("the replayed batch at the receiver", async () =>
      receiver.requests.some((request) => {
        const sent = JSON.parse(request.body) as { sequence: number; replay: boolean }
        return sent.sequence === 1 && sent.replay
      }), 60_000)
    // Replay from an event id: that event first, in a new batch.
    const eventId = (body.events as Array<{ id: string }>).at(-1)!.id
    await page.getByLabel("every event from an event id on, that event included (new batches)").check()
    await page.getByLabel("Event id", { exact: true }).fill(eventId)
    await page.getByRole("button", { name: "Replay", exact: true }).click()
    await until("the batch replayed from the event at the receiver", async () =>
      receiver.requests.some((request) => {
        const sent = JSON.parse(request.body) as { sequence: number; replay: boolean; events: ReadonlyArray<{ id: string }> }
        return sent.replay && sent.sequence > 1 && sent.events[0]?.id === eventId
      }), 60_000)

    // A setting changed: only it is sent (the stream's events and chains stay as they were).
    const unchanged = (await call(service, "GET", `/v1/streams/${streamId}`)).body
    await page.getByLabel("Description").fill("Busy wallet on eth, watched")
    await page.getByRole("button", { name: "Save the settings" }).click()
    await page.getByText("Settings saved.").waitFor()
    const after = (await call(service, "GET", `/v1/streams/${streamId}`)).body
    assert.deepStrictEqual([after.description, after.events, after.chains], ["Busy wallet on eth, watched", unchanged.events, unchanged.chains])

    // Pause and resume by the keyboard: the badge says so, the focus stays on the button as it turns.
    await page.getByRole("button", { name: "Pause", exact: true }).focus()
    await page.keyboard.press("Enter")
    await page.locator("h1 .badge-paused").waitFor()
    assert.strictEqual((await call(service, "GET", `/v1/streams/${streamId}`)).body.status, "paused")
    assert.strictEqual(await page.evaluate("document.activeElement.textContent"), "Resume")
    await page.keyboard.press("Enter")
    await page.locator("h1 .badge-active").waitFor()
    assert.strictEqual(await page.evaluate("document.activeElement.textContent"), "Pause")

    // A test event: the receiver's answer is said. A new secret: shown once, the old one still signing.
    await page.getByRole("button", { name: "Send a test event" }).click()
    await page.getByText(/^Test event delivered: the receiver answered 200 in \d+ ms\.$/).waitFor()
    assert.isAbove(receiver.tests.filter((test) => test.streamId === streamId).length, 0, "the kit took a test event")
    await page.getByRole("button", { name: "Rotate the secret" }).click()
    await page.getByRole("dialog", { name: "Rotate the secret?" }).getByRole("button", { name: "Rotate the secret" }).click()
    const rotated = await page.locator("#secret-value").textContent()
    assert.match(rotated ?? "", /^whsec_/)
    assert.notStrictEqual(rotated, secret)
    receiver.secrets.set(streamId, [rotated!, secret!])
    await page.getByRole("button", { name: "I have kept it" }).click()
    // Gone, and the focus back on the button that opened it, before the keyboard goes on.
    await page.getByRole("dialog").waitFor({ state: "detached" })
    await until("the focus back on the rotation's button", async () => (await page.evaluate("document.activeElement.textContent")) === "Rotate the secret", 10_000)
    assert.isTrue((await call(service, "GET", `/v1/streams/${streamId}`)).body.secretRotation.inGrace)

    // Delete asks first: Escape keeps the stream, and the focus goes back to the button.
    await page.getByRole("button", { name: "Delete", exact: true }).focus()
    await page.keyboard.press("Enter")
    await page.getByRole("dialog", { name: "Delete this stream?" }).waitFor()
    await checked(page, "10-confirm-delete")
    // Changed meanwhile, the stream's header is drawn again behind the dialog: the focus still finds its way back.
    assert.strictEqual((await call(service, "PATCH", `/v1/streams/${streamId}`, { description: "Busy wallet on eth, still" })).status, 200)
    await page.locator("h1", { hasText: "Busy wallet on eth, still" }).waitFor()
    await page.keyboard.press("Escape")
    await page.getByRole("dialog").waitFor({ state: "detached" })
    // (The dialog's `close` event, which gives the focus back, comes a moment after it is hidden.)
    await until("the focus back on Delete", async () => (await page.evaluate("document.activeElement.textContent")) === "Delete", 10_000)
    assert.strictEqual((await call(service, "GET", `/v1/streams/${streamId}`)).status, 200)

    // The list of streams shows the stream's numbers.
    await page.getByRole("link", { name: "Streams" }).first().click()
    const listed = page.locator("table.streams tbody tr", { hasText: "Busy wallet on eth, still" })
    await listed.waitFor()
    assert.match(await listed.innerText(), /active/)
    await checked(page, "11-streams")
    assert.deepStrictEqual(homeOnly(requests), [], "no request left the service's origin")
  }, 300_000)

  it("at phone width and in the dark: no page wider than the screen, nothing serious for axe", async () => {
    const { page, requests } = await freshPage({ width: 390, height: 844, dark: true })
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    await page.locator("table.streams tbody tr").first().waitFor()
    const wider = async () => Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
    assert.isAtMost(await wider(), 0, "the streams")
    await checked(page, "12-phone-dark-streams")
    await page.locator("table.streams tbody tr a").first().click()
    await page.locator(".summary dl").waitFor()
    assert.isAtMost(await wider(), 0, "a stream")
    await checked(page, "13-phone-dark-stream")
    assert.deepStrictEqual(homeOnly(requests), [])
  }, 120_000)

  it("a wrong token is refused; signed in, the token is in no storage, URL or page source, the cookie is HttpOnly and SameSite=Strict", async () => {
    const { context, page } = await freshPage()
    await signIn(page, "not-the-token")
    await page.getByText("That is not the service's API token.").waitFor()
    assert.deepStrictEqual(await context.cookies(), [], "no cookie for a wrong token")
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    const kept = await page.evaluate(`({
      local: Object.keys(localStorage).map((key) => key + "=" + localStorage.getItem(key)),
      session: Object.keys(sessionStorage).map((key) => key + "=" + sessionStorage.getItem(key)),
      url: location.href,
      source: document.documentElement.outerHTML,
      cookie: document.cookie
    })`) as { readonly local: Array<string>; readonly session: Array<string>; readonly url: string; readonly source: string; readonly cookie: string }
    for (const [where, text] of Object.entries(kept)) assert.notInclude(JSON.stringify(text), apiToken, where)
    assert.strictEqual(kept.cookie, "", "the session cookie is out of the page's reach")
    const cookies = await context.cookies()
    assert.deepStrictEqual(cookies.map((cookie) => [cookie.name, cookie.httpOnly, cookie.sameSite, cookie.path]), [["chainquery_session", true, "Strict", "/"]])
    assert.notInclude(cookies[0]!.value, apiToken)
  }, 120_000)

  it("a cross-site form post with the session cookie changes nothing; after sign-out the API refuses the pages' requests", async () => {
    const { page } = await freshPage()
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    const streams = async () => (await call(service, "GET", "/v1/streams")).body.streams.length as number
    const count = await streams()
    // Another origin (another port of this host: the same site, so the cookie goes; the CSRF token is what stops it).
    const evil: Server = createServer((_, response) => {
      response.writeHead(200, { "content-type": "text/html" }).end(
        `<form id="f" method="POST" action="${service.url}/v1/streams" enctype="text/plain">` +
          `<input name='{"url":"http://127.0.0.1:9/x","description":"forged","x":"' value='"}'></form><script>document.getElementById("f").submit()</script>`
      )
    })
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise<void>((resolve) => evil.close(() => resolve())))
    const port = (evil.address() as { port: number }).port
    const answered = page.waitForResponse((response) => response.url() === `${service.url}/v1/streams` && response.request().method() === "POST")
    await page.goto(`http://127.0.0.1:${port}/`)
    const forged = await answered
    assert.strictEqual(forged.status(), 403)
    assert.strictEqual(await streams(), count, "nothing was created")

    await page.goto(`${service.url}/console`)
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    const after = await page.evaluate(`fetch("/v1/streams").then((response) => response.status)`)
    assert.strictEqual(after, 401)
    await page.reload()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
  }, 120_000)

  it("signed in again in another tab: a change with the old CSRF token is refused, then made with the new one; sign-out works still", async () => {
    const { context, page } = await freshPage()
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    const row = page.locator("table.streams tbody tr").first()
    await row.waitFor()
    // Another tab of the same browser signs in again: a new session, the one before ended, the cookie replaced.
    const other = await context.newPage()
    await other.goto(`${service.url}/console`)
    const signedAgain = await other.evaluate(`fetch("/v1/session", { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: ${JSON.stringify(apiToken)} }) }).then((response) => response.status)`)
    assert.strictEqual(signedAgain, 200)
    const streamId = /str_[0-9a-z]{21}/.exec(await row.locator("a").first().getAttribute("href") ?? "")![0]
    const status = async () => (await call(service, "GET", `/v1/streams/${streamId}`)).body.status as string
    const was = await status()
    const action = was === "paused" ? "Resume" : "Pause"
    await row.getByRole("button", { name: new RegExp(`^${action} `) }).click()
    await page.getByText("The session changed (signed in again elsewhere): nothing was changed, try again.").waitFor()
    assert.strictEqual(await status(), was, "nothing changed with the old token")
    await page.locator("table.streams tbody tr").first().getByRole("button", { name: new RegExp(`^${action} `) }).click()
    await until("the change made with the new token", async () => (await status()) !== was, 30_000)
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    assert.strictEqual(await other.evaluate(`fetch("/v1/streams").then((response) => response.status)`), 401, "the session ended for every tab")
    // Back as it was, for the tests after.
    if ((await status()) !== was) await call(service, "POST", `/v1/streams/${streamId}/${was === "paused" ? "pause" : "resume"}`, {})
  }, 120_000)

  it("live while shown only: no request while the tab is hidden, refreshed again once it shows", async () => {
    const { page, requests } = await freshPage()
    await signIn(page)
    await page.getByRole("heading", { name: "Streams" }).waitFor()
    const apiCalls = () => requests.filter((url) => url.includes("/v1/streams"))
    const hide = (hidden: boolean) =>
      page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event("visibilitychange"))`)
    await hide(true)
    // A refresh under way when the tab hid may still finish: a moment for it, then none at all.
    await sleep(3_000)
    const before = apiCalls().length
    await sleep(5_000)
    assert.strictEqual(apiCalls().length, before, "no request in 5 s while hidden (a refresh is due every 2 s)")
    await hide(false)
    await until("a refresh once shown again", async () => apiCalls().length > before, 15_000)
  }, 60_000)

  it("the script and the stylesheet sent: under 200 KB compressed together, served with a policy that keeps the page home", async () => {
    const { page } = await freshPage()
    const sizes: Array<number> = []
    page.on("response", async (response) => {
      if (/\/console\/assets\/console\.[0-9a-f]{12}\.(js|css)$/.test(response.url())) {
        sizes.push(Number((await response.allHeaders())["content-length"] ?? (await response.body()).length))
      }
    })
    const answer = await page.goto(`${service.url}/console`)
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    assert.strictEqual(sizes.length, 2, "one script, one stylesheet")
    const total = sizes.reduce((sum, size) => sum + size, 0)
    assert.isBelow(total, 200 * 1024, `${total} bytes`)
    const policy = (await answer!.allHeaders())["content-security-policy"] ?? ""
    assert.include(policy, "default-src 'none'")
    assert.include(policy, "connect-src 'self'")
  }, 60_000)
})
