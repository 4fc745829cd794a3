/**
 * Assembles the transactions of one simulated block: numbers transactions and logs, records each
 * NFT move in the chain as it is made (through the chain's `record`, so its indexes stay current)
 * and adds the internal call of a sale.
 *
 * @internal
 */
import type { Random } from "../Random.js"
import type { Collection } from "./EvmConfig.js"
import type { InternalRow, TransferRow, TxRow } from "./EvmRows.js"

/** Assembles the transactions of one block, numbering transactions and logs. */
export class BlockBuilder {
  readonly txs: Array<TxRow> = []
  private logIndex = 0

  /** `record` records a transfer in the chain (its lists, indexes and head state) and returns its index there. */
  constructor(private readonly record: (row: TransferRow) => number, private readonly r: Random, readonly number: number) {}

  plainTx(from: string, to: string): TxRow {
    return this.push(from, to, BigInt(this.r.between(1, 10_000)) * 10n ** 14n, "0x", [], [])
  }

  nftTx(
    sender: string,
    collection: Collection,
    moves: ReadonlyArray<{ readonly tokenId: bigint; readonly from: string; readonly to: string; readonly amount: bigint }>,
    sale?: { readonly value: bigint; readonly operator: string }
  ): TxRow {
    const index = this.txs.length
    const hash = `0x${this.r.hex(32)}`
    const transfers = moves.map((move) =>
      this.record({
        block: this.number,
        txIndex: index,
        logIndex: this.logIndex++,
        txHash: hash,
        contract: collection.address,
        tokenId: move.tokenId,
        from: move.from,
        to: move.to,
        amount: move.amount,
        kind: collection.kind,
        batch: moves.length > 1,
        operator: collection.kind === "ERC1155" || sale !== undefined ? (sale?.operator ?? sender) : null,
        value: sale?.value ?? 0n
      })
    )
    const internal: Array<InternalRow> = sale === undefined ? [] : [{
      type: "CALL",
      from: sale.operator,
      to: moves[0]!.from,
      value: sale.value,
      gas: 2300n,
      gasUsed: 0n
    }]
    return this.push(sender, sale?.operator ?? collection.address, sale?.value ?? 0n, `0x${this.r.hex(36)}`, transfers, internal, hash)
  }

  private push(
    from: string,
    to: string | null,
    value: bigint,
    input: string,
    transfers: ReadonlyArray<number>,
    internal: ReadonlyArray<InternalRow>,
    hash = `0x${this.r.hex(32)}`
  ): TxRow {
    const gas = BigInt(this.r.between(21_000, 400_000))
    const tx: TxRow = {
      hash,
      index: this.txs.length,
      from,
      to,
      value,
      gas,
      gasUsed: gas - BigInt(this.r.int(10_000)),
      gasPrice: BigInt(this.r.between(5, 80)) * 10n ** 9n,
      nonce: BigInt(this.r.int(5000)),
      input,
      transfers,
      internal
    }
    this.txs.push(tx)
    return tx
  }
}
