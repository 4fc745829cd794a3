/**
 * The control API under `/__sim/`: read the head of every chain, the ground-truth log of NFT
 * transfers and DeFi position changes, sample data; advance blocks, reorganise a chain, set
 * faults, read and reset stats, read the request log. Plain JSON over node:http; documented in
 * the package README.
 *
 * @internal
 */
import { AptosToken, Chain, NftTransfer } from "@chainquery/schema"
import { Schema } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { positionChanges } from "./evm/Defi.js"
import type { EvmChain } from "./evm/EvmChain.js"
import { transferRecord } from "./evm/EvmRecords.js"
import type { Network, World } from "./World.js"

const encodeTransfer = Schema.encodeSync(NftTransfer.NftTransfer)
const encodeAptosTransfer = Schema.encodeSync(AptosToken.TokenTransfer)

/**
 * What the control API acts on besides the world: faults, stats and request log of the front
 * door (`resetStats` also empties the request log).
 */
export interface ControlTargets {
  readonly world: World
  readonly getFaults: () => unknown
  readonly setFaults: (json: unknown) => string | undefined
  readonly stats: () => unknown
  readonly resetStats: () => void
  readonly requests: () => ReadonlyArray<unknown>
}

class ControlError extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const readBody = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    let text = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => {
      text += chunk
      if (text.length > 1_000_000) reject(new ControlError(413, "body too large"))
    })
    req.on("end", () => {
      try {
        resolve(text === "" ? {} : JSON.parse(text))
      } catch {
        reject(new ControlError(400, "body is not JSON"))
      }
    })
    req.on("error", reject)
  })

const integer = (url: URL, name: string, fallback?: number): number => {
  const text = url.searchParams.get(name)
  if (text === null) {
    if (fallback !== undefined) return fallback
    throw new ControlError(400, `${name} is required`)
  }
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new ControlError(400, `${name} must be a non-negative integer`)
  return value
}

const chainOf = (world: World, text: string | null): EvmChain => {
  const id = text === null ? undefined : Schema.decodeUnknownOption(Chain.Chain)(text)
  if (id === undefined || id._tag === "None") throw new ControlError(400, `unknown chain: ${text ?? "(missing)"}`)
  return world.evm.chain(id.value)
}

const networkOf = (text: string | null): Network | undefined =>
  text === "aptos-mainnet" ? "mainnet" : text === "aptos-testnet" ? "testnet" : undefined

/** The ground-truth NFT transfers of an EVM chain from a block on, in chain order, wire format. */
const evmEvents = (chain: EvmChain, fromBlock: number) => {
  const first = Math.max(fromBlock, chain.profile.firstBlock)
  const start = chain.block(first)?.transferStart ?? chain.transfers.length
  return chain.transfers.slice(start).map((row) => encodeTransfer(transferRecord(chain, row)))
}

/** Routes one control request. */
export const handleControl = (targets: ControlTargets) => (req: IncomingMessage, res: ServerResponse, url: URL) => {
  const { world } = targets
  const route = `${req.method ?? "GET"} ${url.pathname.replace(/\/+$/, "")}`
  const run = async (): Promise<unknown> => {
    switch (route) {
      case "GET /__sim/head":
        return {
          evm: Object.fromEntries([...world.evm.chains].map(([id, chain]) => [id, chain.head])),
          aptos: { mainnet: Number(world.aptos.mainnet.latestVersion()), testnet: Number(world.aptos.testnet.latestVersion()) }
        }
      case "GET /__sim/events": {
        const network = networkOf(url.searchParams.get("chain"))
        const from = integer(url, "fromBlock", 0)
        if (network !== undefined) {
          return { events: world.aptos[network].transfersSince(BigInt(from)).map((t) => encodeAptosTransfer(t)) }
        }
        return { events: evmEvents(chainOf(world, url.searchParams.get("chain")), from) }
      }
      case "GET /__sim/positions": {
        const chain = chainOf(world, url.searchParams.get("chain"))
        const wallet = (url.searchParams.get("wallet") ?? "").toLowerCase()
        const from = integer(url, "fromBlock", chain.head - 1)
        return { changes: positionChanges(world.options.seed, chain.profile.id, wallet, from, chain.head) }
      }
      case "GET /__sim/sample": {
        const network = networkOf(url.searchParams.get("chain"))
        if (network !== undefined) {
          const aptos = world.aptos[network]
          return {
            wallets: aptos.sampleWallets(10),
            creators: aptos.sampleCreators(5),
            collections: aptos.sampleCollections(5),
            tokens: aptos.sampleTokens(5)
          }
        }
        const chain = chainOf(world, url.searchParams.get("chain"))
        return {
          wallets: world.evm.wallets.slice(0, 10),
          collections: chain.collections.map((c) => ({ address: c.address, name: c.name, kind: c.kind, preIndexed: c.preIndexed })),
          blocks: { first: chain.profile.firstBlock, head: chain.head, indexedHead: world.evm.indexedHead(chain.profile.id) },
          transfers: chain.transfers.length
        }
      }
      case "GET /__sim/reorgs":
        return { reorgs: world.evm.reorgs.map((r) => ({ chain: r.chain, fromBlock: r.fromBlock, orphaned: r.orphaned.length })) }
      case "POST /__sim/advance": {
        world.advance(integer(url, "blocks", 1))
        return { head: Object.fromEntries([...world.evm.chains].map(([id, chain]) => [id, chain.head])) }
      }
      case "POST /__sim/reorg": {
        const chain = chainOf(world, url.searchParams.get("chain"))
        const depth = integer(url, "depth")
        if (depth < 1) throw new ControlError(400, "depth must be at least 1")
        const before = chain.transfers.length
        const record = world.reorg(chain.profile.id, depth)
        return { chain: record.chain, fromBlock: record.fromBlock, orphaned: record.orphaned.length, replacedTransfers: before }
      }
      case "GET /__sim/faults":
        return targets.getFaults()
      case "PUT /__sim/faults":
      case "POST /__sim/faults": {
        const problem = targets.setFaults(await readBody(req))
        if (problem !== undefined) throw new ControlError(400, problem)
        return targets.getFaults()
      }
      case "GET /__sim/stats":
        return targets.stats()
      case "POST /__sim/stats/reset":
        targets.resetStats()
        return targets.stats()
      case "GET /__sim/requests":
        return { requests: targets.requests() }
      default:
        throw new ControlError(404, `no control route ${route}`)
    }
  }
  run().then(
    (body) => send(res, 200, body),
    (error: unknown) =>
      error instanceof ControlError
        ? send(res, error.status, { message: error.message })
        : send(res, 500, { message: String(error) })
  )
}
