/**
 * A measured process's own view of its heap, over the V8 inspector it was started with
 * (`node --inspect=127.0.0.1:PORT`): a full garbage collection and the live heap after it, and
 * heap snapshots to compare over time. Nothing is added to the measured program; the inspector
 * listens on loopback only and is closed with the connection.
 *
 *   const inspector = await Inspector.connect(9229)
 *   const live = await inspector.liveHeap()   // bytes still used after a full collection
 *   await inspector.snapshot("serve-15m.heapsnapshot")
 */
import { once } from "node:events"
import { createWriteStream } from "node:fs"

/** A connection to one process's inspector. */
export interface Inspector {
  /** Collects garbage (twice: what the first frees may free more) and returns the bytes of the V8 heap still used. */
  readonly liveHeap: () => Promise<number>
  /** Writes a heap snapshot (Chrome DevTools' format) to `file`. */
  readonly snapshot: (file: string) => Promise<void>
  readonly close: () => void
}

interface Reply {
  readonly id?: number
  readonly method?: string
  readonly params?: { readonly chunk?: string }
  readonly result?: Record<string, unknown>
  readonly error?: { readonly message: string }
}

/** The debugger URL of the process listening on `port`, polled for up to `timeoutMs` (it may still be starting). */
const debuggerUrl = async (port: number, timeoutMs: number): Promise<string> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as ReadonlyArray<{ readonly webSocketDebuggerUrl: string }>
      if (targets[0] !== undefined) return targets[0].webSocketDebuggerUrl
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`no inspector on 127.0.0.1:${port} after ${timeoutMs} ms: ${String(error)}`, { cause: error })
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Connects to the inspector of the process started with `--inspect=127.0.0.1:${port}`. */
export const connect = async (port: number, timeoutMs = 30_000): Promise<Inspector> => {
  const socket = new WebSocket(await debuggerUrl(port, timeoutMs))
  await once(socket, "open")
  let next = 0
  const pending = new Map<number, { readonly resolve: (result: Record<string, unknown>) => void; readonly reject: (error: Error) => void }>()
  let onChunk: ((chunk: string) => void) | undefined
  socket.addEventListener("message", (message) => {
    const reply = JSON.parse(String(message.data)) as Reply
    if (reply.method === "HeapProfiler.addHeapSnapshotChunk") return onChunk?.(reply.params?.chunk ?? "")
    if (reply.id === undefined) return
    const waiting = pending.get(reply.id)
    pending.delete(reply.id)
    if (reply.error !== undefined) waiting?.reject(new Error(reply.error.message))
    else waiting?.resolve(reply.result ?? {})
  })
  socket.addEventListener("close", () => {
    for (const waiting of pending.values()) waiting.reject(new Error(`the inspector on port ${port} closed`))
    pending.clear()
  })
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next
      pending.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params }))
    })
  await call("HeapProfiler.enable")
  return {
    liveHeap: async () => {
      await call("HeapProfiler.collectGarbage")
      await call("HeapProfiler.collectGarbage")
      const usage = await call("Runtime.getHeapUsage")
      return Number(usage["usedSize"])
    },
    snapshot: async (file) => {
      const out = createWriteStream(file)
      onChunk = (chunk) => out.write(chunk)
      try {
        await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false, captureNumericValue: false })
      } finally {
        onChunk = undefined
        out.end()
        await once(out, "close")
      }
    },
    close: () => socket.close()
  }
}
