/**
 * Wire fidelity of the simulator, over real HTTP on 127.0.0.1:
 * - every field the real service's 200 captures show (packages/schema/test/fixtures) is sent, per
 *   operation; anything sent beyond the captures is a field service.md documents;
 * - what the simulator sends keeps its shape: the key paths and JSON types of its answers are
 *   those recorded in `wire-shape.json` (fields are added deliberately, by updating that record
 *   in the same change, and none is removed or retyped);
 * - the derived fields agree with the world: `minter_address` is the token's first receiver,
 *   `transfer_index` numbers transactions and logs as the service does, the base fee is below
 *   every gas price of its block;
 * - routes that are none of the 14 operations answer a JSON 404 in their family's error shape.
 */
import { Block, EvmPage } from "@chainquery/schema"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { connect } from "node:net"
import { Simulator } from "../src/index.js"
import { capturedPaths } from "./support/captures.js"
import { get } from "./support/http.js"
import { documentedFields } from "./support/serviceFields.js"
import { shapesOf } from "./support/shapes.js"
import { sampleAnswers } from "./support/wireSamples.js"

const recordedShape = JSON.parse(
  readFileSync(new URL("./wire-shape.json", import.meta.url), "utf8")
) as Record<string, Record<string, ReadonlyArray<string>>>


/** Sends one request line as written (no URL handling on the way) and reads the whole answer. */
const rawRequest = (url: string, requestLine: string) =>
  Effect.callback<string, Error>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", (error) => resume(Effect.fail(error)))
    socket.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
    socket.write(`${requestLine}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`)
    return Effect.sync(() => socket.destroy())
  })

/** The merged shapes of the sampled answers, read once for the tests that compare them. */
const sampledShapes = Effect.runSync(Effect.cached(Effect.map(Effect.flatMap(Simulator.Simulator, sampleAnswers), shapesOf)))

const segmentsOf = (path: string) => path.split(/[.[\]]+/).filter((segment) => segment !== "")

describe("simulator, wire fidelity", () => {
  layer(Simulator.layer({ seed: 7, indexing: false, history: 60 }), { timeout: "60 seconds" })((test) => {
    test.effect("sends every field of the real captures, and beyond them only service.md's fields", () =>
      Effect.gen(function*() {
        const shapes = yield* sampledShapes
        const captured = capturedPaths()
        assert.strictEqual(captured.size, 14)
        for (const [operation, paths] of captured) {
          const sent = shapes.get(operation)
          assert.isDefined(sent, `no answer sampled for ${operation}`)
          const missing = [...paths].filter((path) => !Object.hasOwn(sent!, path))
          assert.deepStrictEqual(missing, [], `${operation}: fields of the real captures the simulator does not send`)
          const documented = documentedFields(operation)
          const undocumented = Object.keys(sent!).filter((path) =>
            !paths.has(path) && !segmentsOf(path).every((segment) => documented.has(segment))
          )
          assert.deepStrictEqual(undocumented, [], `${operation}: fields sent that neither a capture nor service.md has`)
        }
      }), 60_000)

    test.effect("keeps the recorded shape of every answer (wire-shape.json)", () =>
      Effect.gen(function*() {
        const shapes = yield* sampledShapes
        assert.deepStrictEqual([...shapes.keys()].toSorted(), Object.keys(recordedShape).toSorted())
        for (const [operation, sent] of shapes) {
          const recorded = recordedShape[operation]!
          const changed = Object.keys(recorded).filter((path) =>
            JSON.stringify(sent[path]) !== JSON.stringify(recorded[path])
          ).map((path) => `${path}: recorded ${JSON.stringify(recorded[path])}, sent ${JSON.stringify(sent[path])}`)
          assert.deepStrictEqual(changed, [], `${operation}: removed or retyped`)
          const added = Object.keys(sent).filter((path) => !Object.hasOwn(recorded, path))
          assert.deepStrictEqual(added, [], `${operation}: new fields, not yet recorded in wire-shape.json`)
        }
      }), 60_000)

    test.effect("derives the new fields from the world", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const chain = sim.world.evm.chain("0x1")
        const api = `${sim.evmUrl}/api/v2.2`
        const contract = chain.collections[0]!.address
        const owners = Schema.decodeUnknownSync(EvmPage.OwnersPage)(
          (yield* get(`${api}/nft/${contract}/owners?chain=eth&limit=20`, { key: sim.apiKey })).json
        )
        assert.isTrue(owners.result.length > 0)
        for (const owner of owners.result) {
          const first = chain.transfers[chain.transfersByToken.get(`${contract}:${owner.token_id}`)![0]!]!
          assert.deepStrictEqual(owner.minter_address, Option.some(first.to))
          assert.strictEqual(first.from, "0x0000000000000000000000000000000000000000")
        }
        const busy = chain.blocks.filter((row) => row.transferEnd > row.transferStart).at(-1)!
        const block = Schema.decodeUnknownSync(Block.Block)((yield* get(`${api}/block/${busy.number}?chain=eth`, { key: sim.apiKey })).json)
        const baseFee = Option.getOrThrow(block.base_fee_per_gas)
        assert.isTrue(block.transactions.length > 0)
        for (const tx of block.transactions) {
          assert.isTrue(tx.gas_price >= baseFee, `gas price ${tx.gas_price} below the base fee ${baseFee}`)
          assert.deepStrictEqual(tx.transfer_index, Option.some([busy.number, tx.transaction_index]))
          for (const log of tx.logs) {
            assert.deepStrictEqual(log.transfer_index, Option.some([busy.number, tx.transaction_index, log.log_index]))
            assert.deepStrictEqual(log.transaction_value, Option.some(tx.value))
          }
        }
      }))

    test.effect("service.md's fields are read per operation", () =>
      Effect.sync(() => {
        assert.isTrue(documentedFields("A6").has("transaction_count") && documentedFields("A6").has("topic0"))
        assert.isFalse(documentedFields("A6").has("token_id"), "A6 is not documented with transfer fields")
        assert.isTrue(documentedFields("B7").has("coin_type_hash") && !documentedFields("B7").has("owner_address"))
      }))

    test.effect("answers a route it does not have with a JSON 404 in the family's error shape", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const key = sim.apiKey
        const unknownA = yield* get(`${sim.evmUrl}/api/v2.2/no/such/route?chain=eth`, { key })
        assert.strictEqual(unknownA.status, 404)
        assert.match(unknownA.headers.get("content-type") ?? "", /^application\/json/)
        assert.deepStrictEqual(unknownA.json, { message: "Cannot GET /api/v2.2/no/such/route" })
        const unknownB = yield* get(`${sim.ledgerUrl.mainnet}/no/such/route`, { key })
        assert.strictEqual(unknownB.status, 404)
        assert.deepStrictEqual(unknownB.json, { statusCode: 404, message: "Cannot GET /aptos/mainnet/no/such/route", error: "Not Found" })
        const outside = yield* get(`${sim.url}/nowhere`, { key })
        assert.deepStrictEqual([outside.status, outside.json], [404, { message: "Cannot GET /nowhere" }])
        const wrongMethod = yield* Effect.promise(() =>
          fetch(`${sim.evmUrl}/api/v2.2/block/1?chain=eth`, { method: "POST", headers: { "x-api-key": key } })
        )
        assert.strictEqual(wrongMethod.status, 404)
        assert.deepStrictEqual(yield* Effect.promise(() => wrongMethod.json()), { message: "Cannot POST /api/v2.2/block/1" })
        // Targets no URL parser accepts are answered too, and the server lives on.
        for (const target of ["http://[bad/x", "http://a:99999/x", "//elsewhere/path?q=1"]) {
          const answer = yield* rawRequest(sim.url, `GET ${target} HTTP/1.1`)
          assert.match(answer, /^HTTP\/1\.1 404 /, target)
          assert.include(answer, JSON.stringify({ message: `Cannot GET ${target.split("?")[0]}` }), target)
        }
        const head = sim.world.evm.chain("0x1").head
        assert.strictEqual((yield* get(`${sim.evmUrl}/api/v2.2/block/${head}?chain=eth`, { key })).status, 200)
      }))
  })
})
