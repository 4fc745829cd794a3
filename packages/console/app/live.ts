/**
 * What keeps a view live: its `refresh` run now and then every 2 seconds (the bound), one at
 * a time, not while the tab is hidden, until the view is left.
 */

/** How often a view is refreshed, in milliseconds. */
export const every = 2000

/**
 * The answers of a list's requests, the latest asked only: one that comes back after a later one
 * was asked (a slow search overtaken by the next keystroke) is `undefined`.
 */
export const latestOnly = () => {
  let asked = 0
  return <A>(request: Promise<A | undefined>): Promise<A | undefined> => {
    const mine = ++asked
    return request.then((answer) => (mine === asked ? answer : undefined))
  }
}

/** Runs `refresh` now and every {@link every} ms until the answered function is called. */
export const keepLive = (refresh: () => Promise<void>): (() => void) => {
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const tick = async () => {
    if (stopped) return
    if (!document.hidden) {
      try {
        await refresh()
      } catch {
        // A failed refresh shows itself in the view; the next one tries again.
      }
    }
    if (!stopped) timer = setTimeout(tick, every)
  }
  void tick()
  return () => {
    stopped = true
    if (timer !== undefined) clearTimeout(timer)
  }
}
