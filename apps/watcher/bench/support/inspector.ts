/**
 * A measured process's own view of its heap, over the V8 inspector it was started with
 * (`node --inspect=127.0.0.1:PORT`): a full garbage collection and the live heap after it, and
 * heap snapshots to compare over time. Nothing is added to the measured program; the inspector
 * listens on loopback only and is closed with the connection.
 *
 *   const inspector = await Inspector.connect(9229)
 *   const live = await inspector.liveHeap()   // bytes still used after a full collection
 *   await inspector.snapshot("serve-15m.heapsnapshot")
 *   const profile = await inspector.cpuProfile(10_000) // where its CPU went over 10 s
 */
import { createWriteStream } from "node:fs"

/** A connection to one process's inspector. */
export interface Inspector {
  /** Collects garbage (twice: what the first frees may free more) and returns the bytes of the V8 heap still used. */
  readonly liveHeap: () => Promise<number>
  /** Writes a heap snapshot (Chrome DevTools' format) to `file`. */
  readonly snapshot: (file: string) => Promise<void>
  /** Samples where the process spends its CPU for `millis` (V8's sampling profiler): a `.cpuprofile`'s JSON. */
  readonly cpuProfile: (millis: number) => Promise<CpuProfile>
  readonly close: () => void
}

/** A V8 CPU profile (Chrome DevTools' `.cpuprofile`): the call tree's nodes and the samples taken in each. */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<{
    readonly id: number
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
    readonly children?: ReadonlyArray<number>
  }>
  readonly samples: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
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
  let last: unknown = "no target listed"
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(5_000) })
      const targets = await response.json() as ReadonlyArray<{ readonly webSocketDebuggerUrl: string }>
      if (targets[0] !== undefined) return targets[0].webSocketDebuggerUrl
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no inspector on 127.0.0.1:${port} after ${timeoutMs} ms: ${String(last)}`, { cause: last })
}

/** Connects to the inspector of the process started with `--inspect=127.0.0.1:${port}`. */
export const connect = async (port: number, timeoutMs = 30_000): Promise<Inspector> => {
  const socket = new WebSocket(await debuggerUrl(port, timeoutMs))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the inspector on port ${port} did not open within ${timeoutMs} ms`)), timeoutMs)
    socket.addEventListener("open", () => (clearTimeout(timer), resolve()), { once: true })
    socket.addEventListener("error", () => (clearTimeout(timer), reject(new Error(`the inspector on port ${port} refused the connection`))), { once: true })
  })
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
  /** One call; fails when the process is gone (its socket closed) or takes longer than `waitMs`. */
  const call = (method: string, params: Record<string, unknown> = {}, waitMs = 120_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (socket.readyState !== WebSocket.OPEN) return reject(new Error(`the inspector on port ${port} is closed (its process exited?)`))
      const id = ++next
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new Error(`${method}: no answer from the inspector on port ${port} within ${waitMs} ms`))
      }, waitMs)
      pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer)
          resolve(result)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        }
      })
      socket.send(JSON.stringify({ id, method, params }))
    })
  await call("HeapProfiler.enable")
  return {
    liveHeap: async () => {
      // V8 keeps the last console messages (up to 1,000) for DevTools once an inspector is there,
      // with the values logged: the service's log lines, which it would not keep without one.
      await call("Runtime.discardConsoleEntries")
      await call("HeapProfiler.collectGarbage")
      await call("HeapProfiler.collectGarbage")
      const usage = await call("Runtime.getHeapUsage")
      return Number(usage["usedSize"])
    },
    snapshot: async (file) => {
      const out = createWriteStream(file)
      let failed: Error | undefined
      out.on("error", (error) => (failed ??= error))
      onChunk = (chunk) => out.write(chunk)
      try {
        await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false, captureNumericValue: false }, 600_000)
      } finally {
        onChunk = undefined
        out.end()
        if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()))
      }
      if (failed !== undefined) throw new Error(`cannot write the heap snapshot ${file}: ${failed.message}`, { cause: failed })
    },
    cpuProfile: async (millis) => {
      await call("Profiler.enable")
      await call("Profiler.start")
      await new Promise((resolve) => setTimeout(resolve, millis))
      const { profile } = await call("Profiler.stop")
      await call("Profiler.disable")
      return profile as CpuProfile
    },
    close: () => socket.close()
  }
}

/**
 * The functions a profile found the CPU in most (self time: the samples taken in the function
 * itself), as `share name (file:line)` lines, idle and garbage collection included.
 */
export const hottest = (profile: CpuProfile, count: number): ReadonlyArray<string> => {
  const samples = new Map<number, number>()
  for (const id of profile.samples) samples.set(id, (samples.get(id) ?? 0) + 1)
  const byFunction = new Map<string, number>()
  for (const node of profile.nodes) {
    const n = samples.get(node.id) ?? 0
    if (n === 0) continue
    const { functionName, lineNumber, url } = node.callFrame
    const name = `${functionName === "" ? "(anonymous)" : functionName} (${url.split("/").slice(-2).join("/")}:${lineNumber + 1})`
    byFunction.set(name, (byFunction.get(name) ?? 0) + n)
  }
  const total = profile.samples.length
  return [...byFunction].toSorted((a, b) => b[1] - a[1]).slice(0, count).map(([name, n]) => `${((n / total) * 100).toFixed(1).padStart(5)}% ${name}`)
}
