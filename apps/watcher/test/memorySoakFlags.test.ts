/**
 * `./run soak-memory`'s flags (`bench/memorySoak.ts`): a bad one exits 2 naming the flag and what
 * is valid, before anything is started; `--help` prints the usage. (The soak itself runs for an
 * hour: SERVE.md, "Memory over time", has its figures.)
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"

const soak = fileURLToPath(new URL("../bench/memorySoak.ts", import.meta.url))
const run = (...args: ReadonlyArray<string>) => spawnSync(process.execPath, [soak, ...args], { encoding: "utf8", timeout: 60_000 })

describe("./run soak-memory's flags", () => {
  it.each([
    [["--duration", "5x"], /--duration: expected a duration such as .*, got "5x"/],
    [["--duration", "30s"], /--duration must be at least 2m, got "30s"/],
    [["--duration", "10m", "--warmup", "10m"], /--warmup must be less than --duration \(10m\), got "10m"/],
    [["--sample-every", "1s"], /--sample-every must be at least 10s, got "1s"/],
    [["--block-time", "10ms"], /--block-time must be at least 100ms, got "10ms"/],
    [["--max-growth=-1"], /--max-growth must be a percentage >= 0, got "-1"/],
    [["--minutes", "5"], /Unknown option '--minutes'/]
  ])("%j exits 2 with the reason and the usage", (args, reason) => {
    const result = run(...args)
    assert.strictEqual(result.status, 2, result.stderr)
    assert.match(result.stderr, reason)
    assert.include(result.stderr, "usage: ./run soak-memory")
    assert.strictEqual(result.stdout, "", "nothing started")
  })

  it("--help prints the usage and exits 0", () => {
    const result = run("--help")
    assert.strictEqual(result.status, 0, result.stderr)
    assert.match(result.stdout, /^usage: \.\/run soak-memory -- \[--duration 1h\]/)
  })
})
