/**
 * A content filter as a request gives it, checked (every contract an EVM address or an Aptos
 * collection id, at most 1,000; every `minValue` a decimal of an EVM chain the stream receives),
 * and as answered (chains by name). A bad one is a 400 naming the field, before anything is stored.
 *
 * @since 0.5.0
 */
import { Effect } from "effect"
import * as Scopes from "../model/Scopes.js"
import * as StreamFilters from "../model/StreamFilters.js"
import { BadRequest, type FiltersRequest, type FiltersView } from "./ManagementApi.js"

const badRequest = (field: string, message: string) => new BadRequest({ error: "bad_request", field, message })

const evmAddress = /^0x[0-9a-fA-F]{40}$/
const aptosCollection = /^(0x)?[0-9a-fA-F]{64}$/
const amount = /^(0|[1-9][0-9]{0,77})$/

/** A contract as events name it: an EVM address in lower case, an Aptos collection id as 64 lower-case hex digits. */
const contractOf = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (evmAddress.test(trimmed)) return trimmed.toLowerCase()
  if (aptosCollection.test(trimmed)) return trimmed.replace(/^0x/, "").toLowerCase()
  return undefined
}

/**
 * The filter of a request (`null`, or one that lets everything through: none), checked against
 * the chains the stream receives (`null`: all); or a 400 naming the field.
 *
 * @example
 * ```ts
 * import { FilterSettings } from "@chainquery/watch-service"
 *
 * const filters = FilterSettings.parse({ minValue: { eth: "1000" } }, null) // Effect<{ contracts: null, minValue: { "0x1": 1000n } }, BadRequest>
 * ```
 * @since 0.5.0
 */
export const parse = (
  request: FiltersRequest | null,
  scopes: ReadonlyArray<Scopes.Scope> | null
): Effect.Effect<StreamFilters.Filters | null, BadRequest> =>
  Effect.gen(function*() {
    if (request === null) return null
    let contracts: Array<string> | null = null
    if (request.contracts !== undefined) {
      if (request.contracts.length === 0) {
        return yield* badRequest("filters.contracts", "give at least one contract, or leave contracts out for any")
      }
      if (request.contracts.length > StreamFilters.maxContracts) {
        return yield* badRequest("filters.contracts", `at most ${StreamFilters.maxContracts} contracts (this filter has ${request.contracts.length})`)
      }
      const kept = new Set<string>()
      for (const [index, text] of request.contracts.entries()) {
        const contract = contractOf(text)
        if (contract === undefined) {
          return yield* badRequest(
            `filters.contracts[${index}]`,
            `"${text}" is neither an EVM contract address (0x and 40 hex digits) nor an Aptos collection id (64 hex digits)`
          )
        }
        kept.add(contract)
      }
      contracts = [...kept]
    }
    let minValue: Record<Scopes.Scope, bigint> | null = null
    if (request.minValue !== undefined) {
      const names = Object.keys(request.minValue)
      if (names.length === 0) return yield* badRequest("filters.minValue", "give at least one chain, or leave minValue out for any value")
      minValue = {}
      for (const name of names) {
        const field = `filters.minValue.${name}`
        const scope = Scopes.fromName(name)
        if (scope === undefined) return yield* badRequest(field, `unknown chain "${name}"; valid: ${Scopes.validNames}`)
        if (scope.startsWith("aptos:")) return yield* badRequest(field, "trades are EVM events: give a minValue per EVM chain")
        if (scopes !== null && !scopes.includes(scope)) {
          return yield* badRequest(field, `the stream receives events of ${scopes.map(Scopes.nameOf).join(", ")} only, not of ${name}`)
        }
        if (scope in minValue) return yield* badRequest(field, `${name} is named twice: give one minValue per chain`)
        const value = request.minValue[name]!.trim()
        if (!amount.test(value)) {
          return yield* badRequest(
            field,
            `"${request.minValue[name]}" is not an amount: give decimal digits (no sign, no fraction, no leading zero) in the smallest unit of the price's token`
          )
        }
        minValue[scope] = BigInt(value)
      }
    }
    return StreamFilters.normalise({ contracts, minValue })
  })

/**
 * A filter as answered: chains by name, amounts as decimal strings (`null`: none).
 *
 * @example
 * ```ts
 * import { FilterSettings } from "@chainquery/watch-service"
 *
 * FilterSettings.view({ contracts: null, minValue: { "0x1": 5n } }) // { contracts: null, minValue: { eth: "5" } }
 * ```
 * @since 0.5.0
 */
export const view = (filters: StreamFilters.Filters | null): FiltersView | null =>
  filters === null ? null : {
    contracts: filters.contracts,
    minValue: filters.minValue === null
      ? null
      : Object.fromEntries(Object.entries(filters.minValue).map(([scope, value]) => [Scopes.nameOf(scope), String(value)]))
  }
