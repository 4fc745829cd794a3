/**
 * The console's charts, drawn by the page as SVG (no charting service): bars of a count per minute,
 * a line of a value per minute, each with its axis labels and a text alternative that says what
 * it shows in numbers.
 */
import { h, svg } from "./dom.js"

const width = 600
const height = 140
const left = 44
const bottom = 20
const top = 8

/** The greatest of `values` rounded up to a 1, 2 or 5 step (at least 1). */
const ceiling = (values: ReadonlyArray<number>): number => {
  const greatest = Math.max(1, ...values)
  const magnitude = 10 ** Math.floor(Math.log10(greatest))
  return [1, 2, 5, 10].map((step) => step * magnitude).find((step) => step >= greatest) ?? greatest
}

/** A point's place across the chart. */
const xOf = (index: number, count: number) => left + (index * (width - left - 4)) / Math.max(1, count)

/** A value's height on the chart. */
const yOf = (value: number, top_: number) => top + (height - top - bottom) * (1 - value / top_)

const frame = (title: string, description: string, greatest: number, unit: string, labels: readonly [string, string], plot: ReadonlyArray<SVGElement>) =>
  h("figure", { class: "chart" },
    h("figcaption", {}, title),
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${title}: ${description}`, preserveAspectRatio: "none" },
      svg("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "axis" }),
      svg("line", { x1: left, y1: height - bottom, x2: width - 4, y2: height - bottom, class: "axis" }),
      svg("line", { x1: left, y1: top, x2: width - 4, y2: top, class: "grid" }),
      svg("text", { x: left - 6, y: top + 4, class: "label", "text-anchor": "end" }, `${greatest}${unit}`),
      svg("text", { x: left - 6, y: height - bottom, class: "label", "text-anchor": "end" }, `0${unit}`),
      svg("text", { x: left, y: height - 4, class: "label" }, labels[0]),
      svg("text", { x: width - 4, y: height - 4, class: "label", "text-anchor": "end" }, labels[1]),
      plot))

/** Bars of `values` (one per minute, oldest first). */
export const barChart = (title: string, values: ReadonlyArray<number>, labels: readonly [string, string]) => {
  const greatest = ceiling(values)
  const step = (width - left - 4) / Math.max(1, values.length)
  const total = values.reduce((sum, value) => sum + value, 0)
  const peak = Math.max(0, ...values)
  return frame(title, `${total} in all over ${values.length} minutes, at most ${peak} in one minute`, greatest, "", labels,
    values.map((value, index) =>
      svg("rect", {
        x: xOf(index, values.length) + 1,
        y: yOf(value, greatest),
        width: Math.max(1, step - 2),
        height: (height - top - bottom) * (value / greatest),
        class: "bar"
      }, svg("title", {}, String(value)))))
}

/** A line of `values` (one per minute, oldest first; `null`: no value then), in `unit`. */
export const lineChart = (title: string, values: ReadonlyArray<number | null>, unit: string, labels: readonly [string, string]) => {
  const known = values.filter((value): value is number => value !== null)
  const greatest = ceiling(known)
  const step = (width - left - 4) / Math.max(1, values.length)
  const path = values
    .map((value, index) => value === null ? null : `${xOf(index, values.length) + step / 2},${yOf(Math.min(value, greatest), greatest)}`)
    .reduce<{ readonly d: string; readonly open: boolean }>((acc, point) =>
      point === null ? { d: acc.d, open: false } : { d: `${acc.d}${acc.open ? "L" : "M"}${point}`, open: true }, { d: "", open: false }).d
  const last = known.at(-1)
  const description = known.length === 0
    ? "no value yet"
    : `now ${Math.round(last!)}${unit}, at most ${Math.round(Math.max(...known))}${unit} over the last ${values.length} minutes`
  return frame(title, description, greatest, unit, labels, path === "" ? [] : [svg("path", { d: path, class: "line" })])
}
