/**
 * End to end, no secret on the command line in the help (README, SERVE.md): the `--help` of every
 * command (the watching CLI, `demo`, `serve`) shows no secret flag given a value (`--api-token`,
 * `--api-key`, `--secrets-key` followed by anything, `$KEY` and `$(openssl …)` included: `ps`
 * shows what they expand to) and no URL with a password; the flags' own column (`--api-key KEY`)
 * is their syntax, not an example. Secrets are shown read from a file or the environment.
 */
import { describe, expect, it } from "vitest"
import { runCli } from "./support/e2e.js"

const commands: ReadonlyArray<ReadonlyArray<string>> = [[], ["demo"], ["serve"]]

/** A flag of a secret followed by a value on the command line. */
const secretFlagWithValue = /--(?:api-token|api-key|secrets-key)(?:=|\s+)(?!-)\S+/g

/** A URL with a password (`scheme://user:password@host`). */
const urlWithPassword = /[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:[^\s@/]+@/gi

/** The help's text without the flags' own column (`  --api-key KEY   The service's ...`). */
const withoutSyntax = (help: string): string =>
  help.split("\n").map((line) => line.replace(/^\s+--[\w-]+(?:,\s*-\w)?(?: [A-Z][\w:<>|-]*| <[^>]+>| choice)?\s{2,}/, "")).join("\n")

describe("no secret on the command line in any --help", () => {
  for (const command of commands) {
    it(`chainquery-watcher ${[...command, "--help"].join(" ")}`, async () => {
      const result = await runCli([...command, "--help"])
      expect(result.code, result.stderr).toBe(0)
      const help = result.stdout
      expect(help, "the help lists its flags").toMatch(/FLAGS/)
      const text = withoutSyntax(help)
      expect(text.match(secretFlagWithValue) ?? [], "a secret given on the command line").toEqual([])
      expect(text.match(urlWithPassword) ?? [], "a URL with a password").toEqual([])
    }, 60_000)
  }

  it("the checks find what they look for (so a clean help means something)", () => {
    const bad = [
      "  chainquery-watcher serve --api-token $(openssl rand -hex 24) --port 8080",
      "Example: --api-key $KEY",
      "Example: --database-url postgres://watcher:secret@db:5432/watcher",
      "  --secrets-key=abc"
    ].join("\n")
    expect(withoutSyntax(bad).match(secretFlagWithValue)).toHaveLength(3)
    expect(withoutSyntax(bad).match(urlWithPassword)).toHaveLength(1)
    expect(withoutSyntax("  --api-key KEY                 The service's API key").match(secretFlagWithValue)).toBeNull()
    expect(withoutSyntax("prefer --api-key-file or the MORALIS_API_KEY").match(secretFlagWithValue)).toBeNull()
  })
})
