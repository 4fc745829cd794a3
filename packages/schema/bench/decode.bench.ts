/**
 * Decoding cost of 100-record A2 pages: JSON.parse + decode against JSON.parse alone, measured in
 * the same run, interleaved, as a ratio of medians. Two pages: a synthetic one (distinct values of
 * every kind) and a real-shaped one (the records of a real capture, `realShapedPages.ts`).
 * Goal for both: at most 1.8.
 *
 *   node packages/schema/bench/decode.bench.ts   (after a build; ./run bench does both)
 */
import { Result } from "effect"
import { Decode, EvmPage } from "@chainquery/schema"
import { realA2Page } from "./realShapedPages.ts"

const goal = 1.8

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0")

/** A synthetic A2 page: the shape and value kinds of the real captures, 100 distinct records. */
const syntheticPage = {
  total: null,
  page: 0,
  page_size: 100,
  cursor: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJvcmRlciI6IkRFU0MiLCJvZmZzZXQiOjAsImxpbWl0IjoxMDB9.sig",
  block_exists: true,
  index_complete: true,
  result: Array.from({ length: 100 }, (_, i) => ({
    block_number: String(17715655 - i),
    block_timestamp: new Date(Date.UTC(2023, 6, 17, 21, 27, 59) - i * 12_000).toISOString(),
    block_hash: `0x${hex(i * 7919, 64)}`,
    transaction_hash: `0x${hex(i * 104729, 64)}`,
    transaction_index: i % 200,
    log_index: (i * 3) % 500,
    value: "0",
    contract_type: i % 3 === 0 ? "ERC1155" : "ERC721",
    transaction_type: "Single",
    token_address: `0x${hex(i * 31337, 40)}`,
    token_id: (10n ** 70n + BigInt(i)).toString(),
    from_address: `0x${hex(i * 17, 40)}`,
    from_address_label: null,
    to_address: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
    to_address_label: null,
    amount: "1",
    verified: 1,
    operator: i % 2 === 0 ? null : `0x${hex(i * 13, 40)}`,
    possible_spam: false,
    verified_collection: i % 5 === 0
  }))
}

const decodeResult = Decode.decoder(EvmPage.TransfersPage)
const decode = (input: unknown) => Result.getOrThrow(decodeResult(input))

const median = (values: ReadonlyArray<number>) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const time = (iterations: number, body: () => unknown): number => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) body()
  return Number(process.hrtime.bigint() - start) / iterations / 1000
}

/** Measures one page (warm-up, then interleaved rounds) and prints its figures; true when the goal is met. */
const measure = (name: string, page: { readonly result: ReadonlyArray<unknown> }): boolean => {
  const text = JSON.stringify(page)
  const parseOnly = () => JSON.parse(text)
  const parseAndDecode = () => decode(JSON.parse(text))

  // Sanity: the decoded page is complete, so the benchmark measures real work.
  const sample = parseAndDecode()
  if (sample.result.length !== page.result.length || sample.rejected.length !== 0) {
    throw new Error(`${name}: the benchmark page did not decode fully`)
  }

  for (let i = 0; i < 200; i++) {
    parseOnly()
    parseAndDecode()
  }

  const rounds = 21
  const iterations = 100
  const parseTimes: Array<number> = []
  const decodeTimes: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    parseTimes.push(time(iterations, parseOnly))
    decodeTimes.push(time(iterations, parseAndDecode))
  }

  const parseMedian = median(parseTimes)
  const decodeMedian = median(decodeTimes)
  const ratio = decodeMedian / parseMedian
  const met = ratio <= goal
  console.log(`schema: ${name}, A2 page of ${page.result.length} records (${(text.length / 1024).toFixed(1)} KiB)`)
  console.log(`  JSON.parse alone          ${parseMedian.toFixed(1)} µs (median of ${rounds} rounds)`)
  console.log(`  JSON.parse + decode       ${decodeMedian.toFixed(1)} µs`)
  console.log(`  ratio                     ${ratio.toFixed(2)}x (goal <= ${goal}: ${met ? "met" : "NOT met"})`)
  return met
}

measure("synthetic", syntheticPage)
measure("real-shaped", realA2Page())
