/**
 * The concurrency cap of a transport: at most `size` requests in flight. A free slot is taken at
 * once and synchronously (`tryTake`, so the common call pays no fiber step for it); otherwise the
 * call waits in line (`withSlot`), interruptibly, and a slot handed to a waiter that was
 * interrupted meanwhile goes on to the next one.
 */
import { Effect, Exit } from "effect"

/** A line of requests for at most `size` slots. */
export interface Slots {
  /** Takes a slot if one is free. */
  readonly tryTake: () => boolean
  /** Gives a slot back: to the first in line, if any. */
  readonly release: () => void
  /**
   * Runs `effect` holding a slot, released however it ends. `boundWait` wraps the wait for a slot
   * when there is one (e.g. to race it against a deadline).
   */
  readonly withSlot: <A, E, E2>(
    effect: Effect.Effect<A, E>,
    boundWait?: (wait: Effect.Effect<void>) => Effect.Effect<void, E2>
  ) => Effect.Effect<A, E | E2>
}

interface Waiter {
  granted: boolean
  readonly resume: (effect: Effect.Effect<void>) => void
}

/** Slots for `size` requests at once. */
export const make = (size: number): Slots => {
  let free = size
  const line: Array<Waiter> = []

  // Nobody waits while a slot is free: a released slot goes straight to the first in line.
  const tryTake = () => {
    if (free <= 0) return false
    free--
    return true
  }

  const release = () => {
    const next = line.shift()
    if (next === undefined) {
      free++
      return
    }
    // The slot passes straight to the waiter; it resumes on its own turn, not inside the caller's.
    next.granted = true
    queueMicrotask(() => next.resume(Effect.void))
  }

  const take = Effect.callback<void>((resume) => {
    if (tryTake()) return resume(Effect.void)
    const waiter: Waiter = { granted: false, resume }
    line.push(waiter)
    // Interrupted while waiting: leave the line, or pass on a slot handed over meanwhile.
    return Effect.sync(() => {
      if (waiter.granted) release()
      else line.splice(line.indexOf(waiter), 1)
    })
  })

  const withSlot = <A, E, E2>(
    effect: Effect.Effect<A, E>,
    boundWait?: (wait: Effect.Effect<void>) => Effect.Effect<void, E2>
  ): Effect.Effect<A, E | E2> =>
    Effect.uninterruptibleMask((restore) => {
      const held = Effect.ensuring(restore(effect), Effect.sync(release))
      if (tryTake()) return held
      if (boundWait === undefined) return Effect.andThen(restore(take), held)
      // A bound that fails once the slot was taken (it lost a race by a hair) gives the slot back.
      let acquired = false
      const wait = Effect.map(take, () => {
        acquired = true
      })
      const waited = Effect.onExit(restore(boundWait(wait)), (exit) => Exit.isFailure(exit) && acquired ? Effect.sync(release) : Effect.void)
      return Effect.andThen(waited, held)
    })

  return { tryTake, release, withSlot }
}
