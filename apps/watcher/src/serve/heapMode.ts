/**
 * The heap mode of `serve` (`--memory`). `lean` turns on V8's `--optimize-for-size` for the
 * process: the heap grows by less past what is live after each full collection, and compiled code
 * is smaller, so resident memory stays near the live data at the cost of more frequent collections.
 * A service watching a large, slowly changing set of wallets for months spends little CPU per
 * block and much memory per wallet, so `lean` is its default.
 *
 * Node documents `v8.setFlagsFromString` after start as unsupported: a flag may be ignored. This
 * one is read by the heap each time it decides how far to grow, and it is set before any wallet
 * is loaded; `./run bench` measures the real `serve --memory lean` against `--memory fast` (1.1
 * against 3.2 KB per wallet on Node 22), so a Node that ignored it would show there.
 *
 * @internal
 */
import v8 from "node:v8"

/** `--memory`: `lean` (V8 optimised for size) or `fast` (V8's defaults). */
export type HeapMode = "lean" | "fast"

/** Puts the process's heap in `mode` (`useHeapMode("lean")`); `fast` leaves V8 as it started. */
export const useHeapMode = (mode: HeapMode): void => {
  if (mode === "lean") v8.setFlagsFromString("--optimize-for-size")
}
