/**
 * What keeps a view live: its `refresh` run now and then every 2 seconds (the bound), one at
 * a time, not while the tab is hidden, until the view is left.
 */

/** How often a view is refreshed, in milliseconds. */
export const every = 2000

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
