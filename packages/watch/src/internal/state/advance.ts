/**
 * The check every store makes of an advance (see `StateStore.Advance`): it moved exactly the
 * checkpoints the engine counted at its block, or the state changed under the engine (another
 * writer put or moved a checkpoint there) and the commit must fail, with nothing written, so that
 * the engine reads the state again rather than move a wallet it does not know.
 *
 * @internal
 */
import type { Advance } from "../../StateStore.js"

/** Throws when `moved` checkpoints are not the `count` the advance expected. */
export const checkAdvanced = (advance: Advance, moved: number): void => {
  if (moved !== advance.count) {
    throw new Error(
      `chain ${advance.chain}: ${moved} checkpoint(s) stood at block ${advance.from}, not the ${advance.count} the engine counted; ` +
        "the state was changed by another writer, and is read again"
    )
  }
}
