/**
 * DeFi positions, as a pure function of the seed, the chain, the wallet and the block: each wallet
 * has a few potential positions, each open during deterministic block intervals, with a USD value
 * that drifts from block to block. No state, so any block can be asked about.
 *
 * @internal
 */
import type { DefiPositions } from "@chainquery/schema"
import { Option } from "effect"
import { Random } from "../Random.js"

const protocols = [
  { id: "uniswap-v3", name: "Uniswap v3", url: "https://app.uniswap.org", label: "liquidity" },
  { id: "aave-v3", name: "Aave v3", url: "https://app.aave.com", label: "supplied" },
  { id: "lido", name: "Lido", url: "https://lido.fi", label: "staking" },
  { id: "compound-v3", name: "Compound v3", url: "https://app.compound.finance", label: "borrowed" }
] as const

/** Length of the cycle in which a potential position opens once and closes once. */
const cycle = 40

interface Potential {
  readonly protocol: (typeof protocols)[number]
  readonly address: string
  readonly base: number
  readonly phase: number
  readonly openAt: number
  readonly closeAt: number
  readonly token: { readonly symbol: string; readonly name: string; readonly contract: string; readonly decimals: number }
}

const potentialsOf = (seed: string, chain: string, wallet: string): ReadonlyArray<Potential> => {
  const r = new Random(seed).fork("defi", chain, wallet)
  const count = r.chance(0.3) ? 0 : r.between(1, 3)
  return Array.from({ length: count }, (_, i) => {
    const openAt = r.int(cycle / 2)
    return {
      protocol: protocols[(r.int(protocols.length) + i) % protocols.length]!,
      address: `0x${r.hex(20)}`,
      base: 100 + r.int(100_000),
      phase: r.next() * Math.PI * 2,
      openAt,
      closeAt: openAt + cycle / 4 + r.int(cycle / 2),
      token: r.pick([
        { symbol: "WETH", name: "Wrapped Ether", contract: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", decimals: 18 },
        { symbol: "USDC", name: "USD Coin", contract: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6 },
        { symbol: "stETH", name: "Lido Staked Ether", contract: "0xae7ab96520de3a18e5e111b5eaa1db8d2fac2b8c", decimals: 18 }
      ])
    }
  })
}

const isOpen = (potential: Potential, block: number): boolean => {
  const at = ((block % cycle) + cycle) % cycle
  return at >= potential.openAt && at < potential.closeAt
}

/** The protocol summaries of a wallet on a chain at a block (A7's answer). */
export const positionsAt = (
  seed: string,
  chain: string,
  wallet: string,
  block: number
): ReadonlyArray<DefiPositions.ProtocolSummary> => {
  const byProtocol = new Map<string, Array<DefiPositions.Position>>()
  const protocolOf = new Map<string, (typeof protocols)[number]>()
  for (const potential of potentialsOf(seed, chain, wallet)) {
    if (!isOpen(potential, block)) continue
    const usd = Math.round(potential.base * (1 + 0.1 * Math.sin(block / 7 + potential.phase)) * 100) / 100
    const price = potential.token.symbol === "USDC" ? 1 : 3000
    const amount = usd / price
    const position: DefiPositions.Position = {
      label: potential.protocol.label,
      tokens: [{
        token_type: potential.protocol.label === "borrowed" ? "borrowed" : "supplied",
        name: potential.token.name,
        symbol: potential.token.symbol,
        contract_address: potential.token.contract,
        decimals: potential.token.decimals,
        logo: Option.none(),
        thumbnail: Option.none(),
        balance: BigInt(Math.round(amount * 1e6)).toString() + "0".repeat(potential.token.decimals - 6),
        balance_formatted: amount.toFixed(6),
        usd_price: Option.some(price),
        usd_value: Option.some(usd)
      }],
      address: potential.address,
      balance_usd: usd,
      total_unclaimed_usd_value: Option.some(0),
      position_details: Option.none()
    }
    byProtocol.set(potential.protocol.id, [...(byProtocol.get(potential.protocol.id) ?? []), position])
    protocolOf.set(potential.protocol.id, potential.protocol)
  }
  return [...byProtocol].map(([id, positions]) => {
    const protocol = protocolOf.get(id)!
    return {
      protocol_name: protocol.name,
      protocol_id: protocol.id,
      protocol_url: Option.some(protocol.url),
      protocol_logo: Option.some(`https://cdn.example.invalid/defi/${protocol.id}.png`),
      total_unclaimed_usd_value: Option.some(0),
      positions
    }
  })
}

/** A position opening or closing: the ground truth of DeFi changes. */
export interface PositionChange {
  readonly block: number
  readonly wallet: string
  readonly protocolId: string
  readonly address: string
  readonly change: "opened" | "closed"
}

/** Openings and closings of a wallet's positions in blocks `(fromBlock, toBlock]`. */
export const positionChanges = (
  seed: string,
  chain: string,
  wallet: string,
  fromBlock: number,
  toBlock: number
): ReadonlyArray<PositionChange> => {
  const changes: Array<PositionChange> = []
  const potentials = potentialsOf(seed, chain, wallet)
  for (let block = fromBlock + 1; block <= toBlock; block++) {
    for (const potential of potentials) {
      const now = isOpen(potential, block), before = isOpen(potential, block - 1)
      if (now !== before) {
        changes.push({ block, wallet, protocolId: potential.protocol.id, address: potential.address, change: now ? "opened" : "closed" })
      }
    }
  }
  return changes
}
