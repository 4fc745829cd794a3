/**
 * A shell tour of the docs, read as a person reads it: the first ```sh block under a heading, in
 * numbered steps (`# 1. …`, its comment going on in lines indented after the `#`), each step's
 * commands (a command goes on past a trailing `\`, an open quote or a trailing `|`), and after a
 * command, the comment lines showing what it prints.
 */
import { readFileSync } from "node:fs"

/** One command of a tour, as it would be pasted, and what the docs show it prints. */
export interface Command {
  readonly text: string
  readonly shows: ReadonlyArray<string>
}

/** One numbered step: its comment (the words after `# N.`) and its commands. */
export interface Step {
  readonly number: number
  readonly comment: string
  readonly commands: ReadonlyArray<Command>
}

/** The text of the first ```sh block after the line `heading` in `file`; fails when there is none. */
export const shellBlock = (file: string, heading: string): string => {
  const text = readFileSync(file, "utf8")
  const at = text.indexOf(`\n${heading}\n`)
  if (at < 0) throw new Error(`no heading ${JSON.stringify(heading)} in ${file}`)
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(text.slice(at))
  if (block === null) throw new Error(`no sh block under ${JSON.stringify(heading)} in ${file}`)
  return block[1]!
}

/** Whether `text` leaves a quote open or asks for the next line (`\` or a pipe at its end). */
const goesOn = (text: string): boolean => {
  let quote: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quote === undefined) {
      if (c === "\\") i++
      else if (c === "'" || c === "\"") quote = c
    } else if (c === quote) quote = undefined
    else if (c === "\\" && quote === "\"") i++
  }
  return quote !== undefined || /(\\|\|)$/.test(text)
}

/** The numbered steps of a shell block; fails on a command before the first step. */
export const stepsOf = (block: string): ReadonlyArray<Step> => {
  const steps: Array<{ number: number; comment: string; commands: Array<{ text: string; shows: Array<string> }> }> = []
  const lines = block.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const numbered = /^# (\d+)\. (.*)$/.exec(line)
    const step = steps.at(-1)
    if (numbered !== null) {
      steps.push({ number: Number(numbered[1]), comment: numbered[2]!, commands: [] })
    } else if (line.trim() === "") {
      continue
    } else if (step === undefined) {
      throw new Error(`a line before the first numbered step: ${line}`)
    } else if (line.startsWith("#")) {
      const command = step.commands.at(-1)
      if (command === undefined) step.comment += ` ${line.replace(/^#\s*/, "")}`
      else command.shows.push(line.replace(/^#\s?/, ""))
    } else {
      let text = line
      while (goesOn(text) && i + 1 < lines.length) text += `\n${lines[++i]}`
      step.commands.push({ text, shows: [] })
    }
  }
  return steps
}
