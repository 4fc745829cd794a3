/**
 * Test support: the fields service.md documents for each operation, read from the repository's
 * copy of it (`docs/spec/service.md`): the words of the sections that describe the operation's
 * envelope and records. A field the simulator sends beyond the real captures must be one of them.
 */
import { readFileSync } from "node:fs"

const serviceMd = readFileSync(new URL("../../../../docs/spec/service.md", import.meta.url), "utf8")

/** The `### ` sections of service.md, by heading. */
const sections: ReadonlyArray<{ readonly heading: string; readonly text: string }> = serviceMd
  .split(/^### /m)
  .slice(1)
  .map((section) => ({ heading: section.slice(0, section.indexOf("\n")), text: section }))

/** The headings (their starts) of the sections that describe each operation's 200 answer. */
const sectionsOf: Readonly<Record<string, ReadonlyArray<string>>> = {
  A1: ["Family A page envelopes", "NFT transfer record"],
  A2: ["Family A page envelopes", "NFT transfer record"],
  A3: ["Family A page envelopes", "NFT transfer record"],
  A4: ["Family A page envelopes", "NFT trade record"],
  A5: ["Family A page envelopes", "NFT owner record"],
  A6: ["Block (family A)"],
  A7: ["DeFi positions summary"],
  B1: ["Family B page envelope", "Token holding record"],
  B2: ["Family B page envelope", "Token transfer record"],
  B3: ["Family B page envelope", "Token transfer record"],
  B4: ["Family B page envelope", "Collection record"],
  B5: ["Family B page envelope", "Token holding record"],
  B6: ["Family B page envelope", "Token holding record"],
  B7: ["Family B page envelope", "Coin record"]
}

/** The words service.md's sections on `operation` (`A1`..`B7`) use: its documented field names. */
export const documentedFields = (operation: string): ReadonlySet<string> => {
  const starts = sectionsOf[operation]
  if (starts === undefined) throw new Error(`no service.md sections for ${operation}`)
  const texts = starts.map((start) => {
    const section = sections.find(({ heading }) => heading.startsWith(start))
    if (section === undefined) throw new Error(`service.md has no section "${start}"`)
    return section.text
  })
  return new Set(texts.flatMap((text) => text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []))
}
