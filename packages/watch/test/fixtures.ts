/**
 * Decoded records of `@chainquery/schema` for the tests, built from wire-shaped JSON (as the
 * service sends it) so that they are exactly what the clients hand to the watcher.
 */
import { AptosAddress, AptosToken, DefiPositions, EvmAddress, NftTrade, NftTransfer } from "@chainquery/schema"
import { Schema } from "effect"

export const alice = Schema.decodeUnknownSync(EvmAddress.EvmAddress)("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
export const bob = Schema.decodeUnknownSync(EvmAddress.EvmAddress)("0x" + "b0".repeat(20))
export const zero = "0x0000000000000000000000000000000000000000"
export const collection = "0x" + "c0".repeat(20)
export const aptosAlice = Schema.decodeUnknownSync(AptosAddress.AptosAddress)("0xa11ce")
export const aptosBob = Schema.decodeUnknownSync(AptosAddress.AptosAddress)("0xb0b")

export const nftTransfer = (overrides: Record<string, unknown> = {}): NftTransfer.NftTransfer =>
  Schema.decodeUnknownSync(NftTransfer.NftTransfer)({
    token_address: collection,
    token_id: "1234",
    from_address: bob,
    to_address: alice,
    value: "0",
    amount: "1",
    contract_type: "ERC721",
    block_number: "19000000",
    block_timestamp: "2024-05-01T12:00:07.000Z",
    block_hash: "0x" + "aa".repeat(32),
    transaction_hash: "0x" + "11".repeat(32),
    transaction_type: "Single",
    transaction_index: 3,
    log_index: 7,
    operator: null,
    possible_spam: false,
    verified_collection: true,
    ...overrides
  })

export const trade = (overrides: Record<string, unknown> = {}): NftTrade.NftTrade =>
  Schema.decodeUnknownSync(NftTrade.NftTrade)({
    transaction_hash: "0x" + "22".repeat(32),
    transaction_index: "5",
    token_ids: ["1", "2"],
    seller_address: bob,
    buyer_address: alice,
    token_address: collection,
    marketplace_address: "0x" + "ee".repeat(20),
    price_token_address: null,
    price: "1500000000000000000",
    block_timestamp: "2024-05-01T12:00:09.000",
    block_number: "19000001",
    block_hash: "0x" + "bb".repeat(32),
    ...overrides
  })

export const aptosTransfer = (overrides: Record<string, unknown> = {}): AptosToken.TokenTransfer =>
  Schema.decodeUnknownSync(AptosToken.TokenTransfer)({
    coin_amount: null,
    coin_type: null,
    collection_data_id_hash: "cd".repeat(32),
    collection_name: "Aptos Monkeys",
    creator_address: "0x" + "c1".repeat(32),
    event_account_address: aptosAlice,
    event_creation_number: "4",
    event_sequence_number: "9",
    from_address: aptosBob,
    name: "Monkey #7",
    property_version: "0",
    to_address: aptosAlice,
    token_amount: "1",
    token_data_id_hash: "7d".repeat(32),
    transaction_timestamp: "2024-05-01T12:00:11.000000Z",
    transaction_version: "123456789",
    transfer_type: "0x3::token::DepositEvent",
    ...overrides
  })

/** A protocol summary with positions given as [label, address, usd]. */
export const summary = (
  protocol: string,
  positions: ReadonlyArray<readonly [label: string, address: string, usd: number]>
): DefiPositions.ProtocolSummary =>
  Schema.decodeUnknownSync(DefiPositions.ProtocolSummary)({
    protocol_name: protocol.toUpperCase(),
    protocol_id: protocol,
    protocol_url: null,
    protocol_logo: null,
    total_unclaimed_usd_value: null,
    positions: positions.map(([label, address, usd]) => ({
      label,
      tokens: [],
      address,
      balance_usd: usd,
      total_unclaimed_usd_value: null,
      position_details: null
    }))
  })
