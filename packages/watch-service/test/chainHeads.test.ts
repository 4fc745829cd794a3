/**
 * Each chain's head as the scans found it (`ChainHeads`), in a stream's stats (SERVE.md, the
 * management API: `head`, `headAt` per chain): a higher head is taken at once; a lower one
 * written soon after (a scan of other confirmations that read earlier) is refused; a lower one
 * that stays, after a minute, is the chain's. Aptos networks have none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { record, writerOf } from "../src/store/ChainHeads.js"
import { aliceStream, withApi } from "./support/apiFixtures.js"

const aptos = "aptos:0x" + "ab".repeat(32)
const eth = "eth:0x" + "cd".repeat(20)

describe("chain heads in a stream's stats", () => {
  it.live("the highest head found, a lower one only once the higher is a minute old; none for Aptos", () =>
    withApi(async (api) => {
      const id = await aliceStream(api, [eth, aptos])
      const coverage = async () => {
        const { body, status } = await api.call("GET", `/v1/streams/${id}/stats`)
        assert.strictEqual(status, 200)
        return Object.fromEntries((body.coverage as Array<{ chain: string; head: string | null; headAt: string | null }>).map((c) => [c.chain, c]))
      }
      const before = await coverage()
      assert.deepStrictEqual([before.eth?.head, before.eth?.headAt, before.aptos?.head, before.aptos?.headAt], [null, null, null, null], "no scan found a head yet")

      const from = Date.now()
      assert.isTrue(await api.run(record("0x1", 1_000n)), "the first head: held")
      const first = (await coverage()).eth!
      assert.strictEqual(first.head, "1000")
      assert.isTrue(Date.parse(first.headAt!) >= from - 5_000 && Date.parse(first.headAt!) <= Date.now() + 5_000, `headAt ${first.headAt} is now`)
      assert.isTrue(await api.run(record("0x1", 1_001n)))
      assert.strictEqual((await coverage()).eth!.head, "1001", "a higher head at once")
      assert.isFalse(await api.run(record("0x1", 1_000n)), "refused: the scan offers it again")
      assert.strictEqual((await coverage()).eth!.head, "1001", "a lower head soon after: a stale read, refused")
      // The head of 1001 found two minutes ago, and not found again since.
      await api.run(Effect.asVoid(api.sql`UPDATE chain_heads SET seen_at = now() - interval '2 minutes' WHERE scope = '0x1'`))
      const old = (await coverage()).eth!
      assert.isTrue(Date.parse(old.headAt!) < Date.now() - 60_000, "headAt says when the head was first found")
      assert.isTrue(await api.run(record("0x1", 1_001n)), "the same head: held")
      assert.strictEqual((await coverage()).eth!.headAt, old.headAt, "the same head found again keeps its time")
      assert.isTrue(await api.run(record("0x1", 995n)))
      const lower = await coverage()
      assert.strictEqual(lower.eth!.head, "995", "a lower head once the higher is a minute old: the chain's")
      assert.deepStrictEqual([lower.aptos?.head, lower.aptos?.headAt], [null, null], "no head for Aptos")
    }))

  it.live("a scan's writer: a head that does not move is not written again; one refused is written when offered again", () =>
    withApi(async (api) => {
      const id = await aliceStream(api, [eth])
      const head = async () => (await api.call("GET", `/v1/streams/${id}/stats`)).body.coverage[0].head
      const write = writerOf("0x1")
      await api.run(write(1_001n))
      // Another scan's head, higher, recorded meanwhile.
      await api.run(record("0x1", 1_002n))
      await api.run(write(1_001n))
      assert.strictEqual(await head(), "1002", "the same head again: not written (it would be refused anyway)")
      await api.run(write(1_000n))
      assert.strictEqual(await head(), "1002", "a lower head soon after: refused")
      await api.run(Effect.asVoid(api.sql`UPDATE chain_heads SET seen_at = now() - interval '2 minutes' WHERE scope = '0x1'`))
      await api.run(write(1_000n))
      assert.strictEqual(await head(), "1000", "the refused head, offered again by the next cycle: taken once the higher one is a minute old")
    }))
})
