/**
 * End to end: a wrong invocation (a mistyped flag, a bad flag value) of the watcher and of `serve`
 * prints its error once and one line pointing to the command's `--help`, on stderr, and exits 2;
 * not the whole help first, and not the mistyped flag's value taken for a subcommand.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { type Exited, runCli } from "./support/e2e.js"

const wallet = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const watchFlags = ["--wallet", wallet, "--api-key", "k", "--once"]
const serveFlags = ["serve", "--api-token", "invocation-token-0123456789"]

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /** stderr, line by line. */
  readonly lines: ReadonlyArray<string>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "watch: a mistyped flag (--intervl 5s)",
    args: [...watchFlags, "--intervl", "5s"],
    lines: ["chainquery-watcher: unknown flag --intervl (did you mean --interval?)", "run chainquery-watcher --help for its flags and examples"]
  },
  {
    name: "serve: a mistyped flag (--intervl 5s)",
    args: [...serveFlags, "--intervl", "5s"],
    lines: ["chainquery-watcher: unknown flag --intervl (did you mean --interval?)", "run chainquery-watcher serve --help for its flags and examples"]
  },
  {
    name: "watch: --interval 5x, said once",
    args: [...watchFlags, "--interval", "5x"],
    lines: [
      `chainquery-watcher: --interval: expected a duration such as 10s, 500ms, 2m or 1h, got "5x"`,
      "run chainquery-watcher --help for its flags and examples"
    ]
  },
  {
    name: "serve: --interval 5x, said once",
    args: [...serveFlags, "--interval", "5x"],
    lines: [
      `chainquery-watcher: --interval: expected a duration such as 10s, 500ms, 2m or 1h, got "5x"`,
      "run chainquery-watcher serve --help for its flags and examples"
    ]
  }
]

/** Every case run once, two at a time (each is a Node start-up; the machine has 2 cores). */
const results = new Map<string, Exited>()

beforeAll(async () => {
  const queue = [...cases]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.set(next.name, await runCli(next.args))
  }
  await Promise.all([worker(), worker()])
}, 120_000)

describe("a wrong invocation: its error once and where the help is, exit 2", () => {
  for (const { args, lines, name } of cases) {
    it(name, () => {
      const result = results.get(name)!
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr.split("\n").filter((line) => line.trim() !== "")).toEqual(lines)
      expect(result.stdout).toBe("")
      // The value of a bad flag is named once at most (not once by the library and once by the parser).
      const value = args.at(-1)!
      expect(result.stderr.split(`"${value}"`).length - 1).toBeLessThanOrEqual(1)
    })
  }
})
