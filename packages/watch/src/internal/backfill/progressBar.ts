/**
 * A progress bar for long reads, written to an output of its own (the CLI gives it stderr, never
 * stdout, which carries the events): wallets done out of the total (a wallet counts for the share
 * of its range read, so a long range moves the bar; a resumed read starts from what was done
 * before), events found, elapsed time and an estimate of the time left. On a terminal it is one line redrawn in place with `\r`, at
 * most every `redrawMillis`; elsewhere (a pipe, a log file) it is a plain line at every further
 * tenth of the wallets done, and otherwise at most every `lineMillis` as events are found.
 * `finish` ends it with a final line (on a terminal, in place of the bar).
 *
 * @internal
 */

/**
 * Where the bar is written: `process.stderr`, or anything with `write` (and `isTTY` for a terminal).
 * Users name it `Backfill.ProgressOutput`.
 */
export interface ProgressOutput {
  readonly isTTY?: boolean | undefined
  /** The terminal's width: a redrawn line is cut to fit, so that `\r` returns to its start. */
  readonly columns?: number | undefined
  write(text: string): unknown
}

/**
 * What the bar shows. Times are epoch milliseconds.
 *
 * For instance 3 of 10 wallets done and 42 events found, 1.5 s after the start.
 */
export interface ProgressState {
  readonly label: string
  /** Wallets done, with shares of those under way (3.5: three, and half of another). */
  readonly done: number
  /** What was done before the start (a resumed read): the pace counts only what was done since. */
  readonly doneBefore?: number | undefined
  readonly total: number
  readonly events: number
  readonly startedAt: number
  readonly now: number
}

/**
 * What the reader tells the bar.
 *
 * A reader calls `found` as it finds events, and `advance` as it goes through wallets.
 */
export interface Progress {
  /** `wallets` more are done (a share of one as it is read: 0.25 for a quarter of its range). */
  readonly advance: (wallets: number) => void
  /** `events` more were found. */
  readonly found: (events: number) => void
}

/**
 * A bar: report progress, then `finish` once, with `"done"` when the read completed and
 * `"stopped"` otherwise.
 */
export interface ProgressBar extends Progress {
  /** Takes the bar off its line on a terminal (before other text is printed there); the next report draws it again. */
  readonly clear: () => void
  /** Ends the bar with a final line; `stopped` when the read did not complete. */
  readonly finish: (outcome: "done" | "stopped") => void
}

/**
 * A bar that shows nothing: what a backfill uses when it is given no output.
 */
export const silent: ProgressBar = { advance: () => {}, found: () => {}, clear: () => {}, finish: () => {} }

const count = (n: number): string => n.toLocaleString("en-US")

/**
 * A duration for people: `850ms`, `42s`, `3m05s`, `1h02m`.
 *
 * For instance 185 000 ms is `"3m05s"`.
 */
export const formatDuration = (millis: number): string => {
  const ms = Math.max(0, Math.round(millis))
  if (ms < 1000) return `${ms}ms`
  const seconds = Math.floor(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`
}

const percentOf = (state: ProgressState): number =>
  state.total <= 0 ? 100 : Math.floor((Math.min(state.done, state.total) * 100) / state.total)

/**
 * The time left, from the pace since the start; `undefined` before anything was done.
 *
 * For instance 10 of 40 wallets done in 5 s leaves 15 000 ms.
 */
export const eta = (state: ProgressState): number | undefined => {
  const since = state.done - (state.doneBefore ?? 0)
  return since <= 0 || state.total <= 0 ? undefined : ((state.now - state.startedAt) * Math.max(0, state.total - state.done)) / since
}

/** Whole wallets done (a share of one under way does not count yet). */
const whole = (done: number): number => Math.floor(done + 1e-9)

const width = 20

/**
 * One line of the bar, e.g. for 12 of 40 wallets and 1234 events after 5 s:
 * `backfill [######--------------] 12/40 wallets 30% | 1,234 events | 5s elapsed, ~11s left`.
 */
export const render = (state: ProgressState): string => {
  const percent = percentOf(state)
  const filled = Math.round((percent * width) / 100)
  const left = eta(state)
  return `${state.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${count(whole(state.done))}/${count(state.total)} wallets ${percent}%` +
    ` | ${count(state.events)} events | ${formatDuration(state.now - state.startedAt)} elapsed` +
    (whole(state.done) >= state.total ? "" : left === undefined ? ", time left unknown" : `, ~${formatDuration(left)} left`)
}

/**
 * The final line, e.g. `backfill done: 40/40 wallets, 1,234 events in 5s`.
 */
export const renderFinal = (state: ProgressState, outcome: "done" | "stopped"): string =>
  `${state.label} ${outcome}: ${count(whole(state.done))}/${count(state.total)} wallets, ${count(state.events)} events in ${
    formatDuration(state.now - state.startedAt)
  }`

/**
 * Options of {@link make}: the label (e.g. `backfill from block 19000000`), the number of
 * wallets, the clock, and how often to draw.
 */
export interface Options {
  readonly label: string
  readonly total: number
  /** Wallets done before the start (a resumed read); default 0. */
  readonly done?: number | undefined
  /** The current time, in epoch milliseconds. */
  readonly now: () => number
  /** On a terminal: the least time between two redraws (default 100: at most 10 per second). */
  readonly redrawMillis?: number | undefined
  /** Elsewhere: the longest time between two lines while the bar moves (default 5000). */
  readonly lineMillis?: number | undefined
}

/** Erases the current terminal line after the cursor. */
const clearLine = "\u001b[K"

/**
 * A bar on `output`; it writes its first state at once. `Backfill.run` makes one on its
 * `progress` output, with the number of wallets to read as `total`.
 */
export const make = (output: ProgressOutput, options: Options): ProgressBar => {
  const tty = output.isTTY === true
  const redrawMillis = options.redrawMillis ?? 100
  const lineMillis = options.lineMillis ?? 5000
  const startedAt = options.now()
  const doneBefore = options.done ?? 0
  let done = doneBefore
  let events = 0
  let lastDraw = Number.NEGATIVE_INFINITY
  let lastTenth = -1
  let finished = false
  const state = (): ProgressState => ({ label: options.label, done, doneBefore, total: options.total, events, startedAt, now: options.now() })
  const fit = (line: string): string => {
    const columns = output.columns
    return columns !== undefined && columns > 1 && line.length > columns - 1 ? line.slice(0, columns - 1) : line
  }
  const draw = (force: boolean) => {
    if (finished) return
    const current = state()
    if (tty) {
      if (!force && current.now - lastDraw < redrawMillis) return
      output.write(`\r${fit(render(current))}${clearLine}`)
    } else {
      const tenth = Math.floor(percentOf(current) / 10)
      if (!force && tenth <= lastTenth && current.now - lastDraw < lineMillis) return
      lastTenth = Math.max(lastTenth, tenth)
      output.write(`${render(current)}\n`)
    }
    lastDraw = current.now
  }
  draw(true)
  return {
    advance: (wallets) => {
      done += wallets
      draw(false)
    },
    found: (n) => {
      if (n <= 0) return
      events += n
      draw(false)
    },
    clear: () => {
      if (!tty || finished) return
      output.write(`\r${clearLine}`)
      lastDraw = Number.NEGATIVE_INFINITY
    },
    finish: (outcome) => {
      if (finished) return
      const final = renderFinal(state(), outcome)
      finished = true
      output.write(tty ? `\r${fit(final)}${clearLine}\n` : `${final}\n`)
    }
  }
}
