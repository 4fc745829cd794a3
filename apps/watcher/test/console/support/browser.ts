/**
 * A real browser for the console's tests: Chromium from `@sparticuz/chromium` (the binary ships in
 * the npm package; no system package needed) driven by `playwright-core`, closed in a finaliser.
 * Beside it: every request a page makes (to prove none leaves the service's origin), an
 * accessibility check with axe-core (its source evaluated in the page, which its CSP would not
 * let a script tag load), and screenshots kept as test artefacts (`apps/watcher/.artefacts/console/`,
 * ignored by git).
 */
import chromium from "@sparticuz/chromium"
import { mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium as playwright, type Page } from "playwright-core"

/** Where screenshots go. */
export const artefacts = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".artefacts", "console")

/**
 * The flags Chromium is run with: no sandbox (the tests may run as root) and software rendering
 * (no GPU here). Not the package's own list, which is made for serverless functions: it turns the
 * same-origin policy off (`--disable-web-security`) and runs one process for every context, which
 * shares their cookies; the console must be seen as a user's browser sees it.
 */
const flags = ["--no-sandbox", "--no-zygote", "--use-gl=angle", "--use-angle=swiftshader", "--in-process-gpu", "--font-render-hinting=none"]

/** Launches Chromium; `close` ends it (and its processes). */
export const launch = async (): Promise<Browser> =>
  playwright.launch({ executablePath: await chromium.executablePath(), args: flags, headless: true })

/** Every URL `page` asked for, in order. */
export const recordRequests = (page: Page): Array<string> => {
  const urls: Array<string> = []
  page.on("request", (request) => urls.push(request.url()))
  return urls
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** A violation axe reports: its rule, how bad, and where. */
export interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/** axe-core's violations of `page` as it is now (WCAG 2.1 A and AA, and best practices). */
export const axe = async (page: Page): Promise<ReadonlyArray<Violation>> => {
  await page.evaluate(`(() => { if (window.axe === undefined) { ${axeSource}\n } })()`)
  return page.evaluate(`window.axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }
    }).then((results) => results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      targets: violation.nodes.map((node) => String(node.target))
    })))`) as Promise<ReadonlyArray<Violation>>
}

/** The violations that are serious or critical. */
export const serious = (violations: ReadonlyArray<Violation>): ReadonlyArray<Violation> =>
  violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical")

/** A screenshot of `page` as `<name>.png` among the artefacts. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(artefacts, { recursive: true })
  await page.screenshot({ path: path.join(artefacts, `${name}.png`), fullPage: true })
}
