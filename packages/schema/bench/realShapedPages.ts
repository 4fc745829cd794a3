/**
 * Real-shaped pages for the benchmarks: the records of a real capture (the fixtures), repeated
 * to 100 with a distinct position each, so every benchmark that needs "a page as the service
 * sends it" measures the same bytes. Used by the decode, client and stream benchmarks.
 *
 *   import { realA2Page, realB3Page } from "../../schema/bench/realShapedPages.ts"
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const fixture = (path: string) =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../test/fixtures/${path}`, import.meta.url)), "utf8")) as {
    readonly result: ReadonlyArray<Record<string, unknown>>
  } & Record<string, unknown>

const repeated = <R>(records: ReadonlyArray<R>, count: number, distinct: (record: R, i: number) => R) =>
  Array.from({ length: count }, (_, i) => distinct(records[i % records.length]!, i))

/**
 * An A2 page of `count` records (default 100, about 80 KB) from the capture
 * `A2/docs-howto-wallet-0xd8da-2023-07.json`: ERC1155 transfers with 77-digit token ids, null
 * labels, `verified` as a number. Each copy gets its own `log_index`; `cursor` is kept (set it to
 * `null` for a last page).
 */
export const realA2Page = (count = 100) => {
  const page = fixture("A2/docs-howto-wallet-0xd8da-2023-07.json")
  return { ...page, page_size: count, result: repeated(page.result, count, (record, i) => ({ ...record, log_index: i })) }
}

/**
 * A B3 page of `count` records (default 100) from the capture
 * `B3/docs-howto-wallets-nft-transfers.json`. Each copy gets its own `event_sequence_number` and
 * `transaction_version`.
 */
export const realB3Page = (count = 100) => {
  const page = fixture("B3/docs-howto-wallets-nft-transfers.json")
  return {
    ...page,
    result: repeated(page.result, count, (record, i) => ({
      ...record,
      event_sequence_number: String(i),
      transaction_version: String(Number(record["transaction_version"]) - i)
    }))
  }
}
