/** How the console writes numbers, times and ages. */

/** `0.987` as `98.7%`; `null` as `—`. */
export const percent = (share: number | null): string => share === null ? "—" : `${(share * 100).toFixed(share === 1 ? 0 : 1)}%`

/** A duration in seconds in words: `42 s`, `3 min`, `2 h 5 min`, `3 d`. */
export const age = (seconds: number | null): string => {
  if (seconds === null) return "—"
  if (seconds < 60) return `${Math.round(seconds)} s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`
  return `${Math.floor(seconds / 86400)} d`
}

/** An ISO time as the reader's local date and time, to the second. */
export const time = (iso: string | null): string => iso === null ? "—" : new Date(iso).toLocaleString(undefined, { hour12: false })

/** A count with thousands separated. */
export const count = (value: number): string => value.toLocaleString("en-US")
