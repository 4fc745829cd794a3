// A test hold, loaded before the watcher's bin with `node --import` (see `nodeFlags` in
// test/e2e/support/e2e.ts), never part of the published program. `CHAINQUERY_WATCHER_TEST_HOLD=before:N`
// (or `after:N`) holds the Nth write to stdout (one batch of events) for good, before its text is
// written (or once it was taken, before the batch is settled), and says so on stderr. A test can
// then `kill -9` the process at that exact point of a batch's write-ahead.
const hold = /^(before|after):([1-9]\d*)$/.exec(process.env["CHAINQUERY_WATCHER_TEST_HOLD"] ?? "")
if (hold === null) throw new Error(`CHAINQUERY_WATCHER_TEST_HOLD must be before:N or after:N, got ${JSON.stringify(process.env["CHAINQUERY_WATCHER_TEST_HOLD"])}`)
const [, when, nth] = hold
const stdout = process.stdout
const write = stdout.write.bind(stdout)
let writes = 0
stdout.write = (chunk, ...rest) => {
  writes += 1
  if (writes !== Number(nth)) return Reflect.apply(write, stdout, [chunk, ...rest])
  const lines = (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString()).split("\n").length - 1
  const held = `chainquery-watcher test hold: write ${writes} (${lines} line(s)) held ${when} it was written\n`
  return when === "before" ? process.stderr.write(held) : write(chunk, () => process.stderr.write(held))
}
