/**
 * A second SIGINT or SIGTERM stops the process at once. The first one interrupts the program,
 * which then stops in order (for `serve`: the HTTP server, the cluster, the database last); an
 * operator who does not want to wait for that sends another (a second Ctrl-C), and the process
 * exits right away, with the code of the signal (130, 143). What the program committed is kept: it
 * never depended on a clean stop (a `kill -9` is survived as well). An embedded PostgreSQL is told
 * to stop as the process exits (see `store/embedded/PostgresServer.ts` in `@chainquery/watch-service`).
 *
 * @internal
 */

/** The exit code of a process ended by `signal`: 128 plus its number. */
const exitCodeOf = (signal: NodeJS.Signals): number => signal === "SIGINT" ? 130 : 143

/**
 * A signal this soon after the first is the same one delivered twice (a terminal's Ctrl-C reaches
 * a process both directly and through a parent that forwards it, as `npm exec` does), not an
 * operator's second.
 */
const echoMs = 250

/**
 * Installs the listeners: after one signal, the next SIGINT or SIGTERM (past 250 ms) writes one
 * line to stderr and exits. `NodeRuntime.runMain` handles the first (it interrupts the main
 * fiber). Answers their removal.
 *
 * @internal
 */
export const exitOnSecondSignal = (): (() => void) => {
  let first: number | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    const now = performance.now()
    if (first === undefined) first = now
    if (now - first < echoMs) return
    process.stderr.write(`chainquery-watcher: ${signal} again: stopping now, without waiting for the shutdown in progress\n`)
    process.exit(exitCodeOf(signal))
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  return () => {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
  }
}
