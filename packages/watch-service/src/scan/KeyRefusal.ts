/**
 * Whether the data service refused the service's API key (a 401 or 403 from it): then nothing can
 * be scanned until the service is restarted with the right key. The scanners record it (logged
 * once), stop, and `/readyz` answers 503 with the reason; it never heals by itself.
 *
 * @since 0.5.0
 */
import { EvmClient } from "@chainquery/evm-client"
import type { EvmAddress } from "@chainquery/schema"
import { EngineError } from "@chainquery/watch"
import { Context, Effect, Layer, Option, Ref } from "effect"

/**
 * The runner's record of a refused API key.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { KeyRefusal } from "@chainquery/watch-service"
 *
 * const refused = Effect.gen(function*() {
 *   const keys = yield* KeyRefusal.KeyRefusal
 *   return Option.isSome(yield* keys.reason)
 * })
 * ```
 * @since 0.5.0
 */
export class KeyRefusal extends Context.Service<KeyRefusal, {
  /** What the refusal said, once the key was refused (`None` before). */
  readonly reason: Effect.Effect<Option.Option<string>>
  /** Records a refusal; the first is logged (one line, at ERROR: the service cannot work on). */
  readonly refuse: (reason: string) => Effect.Effect<void>
}>()("@chainquery/watcher/KeyRefusal") {
  /** A fresh record, with no refusal. */
  static readonly layer: Layer.Layer<KeyRefusal> = Layer.effect(
    KeyRefusal,
    Effect.gen(function*() {
      const ref = yield* Ref.make(Option.none<string>())
      return KeyRefusal.of({
        reason: Ref.get(ref),
        refuse: (reason) =>
          Effect.flatMap(
            Ref.modify(ref, (before) => [Option.isNone(before), Option.isNone(before) ? Option.some(reason) : before] as const),
            (first) => first ? Effect.logError(`${reason}: ${consequence}`) : Effect.void
          )
      })
    })
  )
}

/** What a refused key means for the service, and what to do. */
const consequence = "nothing is scanned and /readyz answers 503 until the service is restarted with the right key (--api-key-file or MORALIS_API_KEY)"

/**
 * The reason `/readyz` gives for a refused key.
 *
 * @example
 * ```ts
 * import { KeyRefusal } from "@chainquery/watch-service"
 *
 * KeyRefusal.notReady("the data service refused the API key (HTTP 401: Invalid key)")
 * ```
 * @since 0.5.0
 */
export const notReady = (reason: string): string => `${reason}: ${consequence}`

/**
 * One request at start (one page of one transfer of an Ethereum address; no block listing, which
 * the scans' turns are told by): a refused key is known at once, before any stream has a wallet to
 * scan. Any other failure is left to the scans (they retry and log it).
 *
 * @example
 * ```ts
 * import { KeyRefusal } from "@chainquery/watch-service"
 *
 * const atStart = KeyRefusal.probe // Effect<void, never, KeyRefusal | EvmClient>
 * ```
 * @since 0.5.0
 */
export const probe: Effect.Effect<void, never, KeyRefusal | EvmClient.EvmClient> = Effect.gen(function*() {
  const keys = yield* KeyRefusal
  const client = yield* EvmClient.EvmClient
  const read = yield* Effect.result(
    client.getWalletNFTTransfers({ address: anyAddress, chain: "0x1", limit: 1 }).pipe(Effect.mapError(EngineError.fromClient("getWalletNFTTransfers")))
  )
  if (read._tag === "Success") return
  const refused = EngineError.keyRefusal(read.failure)
  if (refused !== undefined) yield* keys.refuse(refused)
})

/** Any Ethereum address: the probe only asks whether the key is taken. */
const anyAddress = "0x0000000000000000000000000000000000000000" as EvmAddress.EvmAddress
