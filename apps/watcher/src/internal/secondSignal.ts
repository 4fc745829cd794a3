/**
 * A second SIGINT or SIGTERM stops the process at once. The first one interrupts the program,
 * which then stops in order (for `serve`: the HTTP server, the cluster, the database last); an
 * operator who does not want to wait for that sends another (a second Ctrl-C), and the process
 * exits right away, with the code of the signal (130, 143). What the program committed is kept: it
 * never depended on a clean stop (a `kill -9` is survived as well). An embedded PostgreSQL is told
 * to stop as the process exits (see `service/embedded/PostgresServer.ts`).
 *
 * @internal
 */

/** The exit code of a process ended by `signal`: 128 plus its number. */
const exitCodeOf = (signal: NodeJS.Signals): number => signal === "SIGINT" ? 130 : 143

/**
 * Installs the listeners: after one signal, the next SIGINT or SIGTERM writes one line to stderr
 * and exits. `NodeRuntime.runMain` handles the first (it interrupts the main fiber).
 *
 * @internal
 */
export const exitOnSecondSignal = (): void => {
  let received = 0
  const onSignal = (signal: NodeJS.Signals) => {
    received++
    if (received < 2) return
    process.stderr.write(`chainquery-watcher: ${signal} again: stopping now, without waiting for the shutdown in progress\n`)
    process.exit(exitCodeOf(signal))
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
}
