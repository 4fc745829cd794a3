/**
 * How the CLI and `serve` reach the service: the API key (`--api-key`, else `MORALIS_API_KEY`;
 * an empty one is refused), and the base URLs it may be sent to (https:, or http: to a loopback
 * host, unless `--allow-insecure-http`).
 *
 * @internal
 */
import { BaseUrl } from "@chainquery/transport"
import { Option, Redacted, Result } from "effect"

/** The API key, or why there is none. */
export const apiKeyOf = (flag: Option.Option<Redacted.Redacted<string>>): Result.Result<Redacted.Redacted<string>, string> => {
  const env = process.env["MORALIS_API_KEY"]
  if (Option.isSome(flag) && Redacted.value(flag.value).trim() !== "") return Result.succeed(flag.value)
  if (Option.isNone(flag) && env !== undefined && env.trim() !== "") return Result.succeed(Redacted.make(env))
  return Result.fail("no API key (or an empty one): give --api-key KEY or set the MORALIS_API_KEY environment variable")
}

/** The base URL flags given, checked: `undefined` when all may carry the key, else why one may not. */
export const refusedBaseUrl = (
  flags: {
    readonly evmBaseUrl: Option.Option<string>
    readonly ledgerBaseUrl: Option.Option<string>
    readonly ledgerTestnetBaseUrl: Option.Option<string>
    readonly allowInsecureHttp: boolean
  }
): string | undefined => {
  const baseUrls = [
    ["--evm-base-url", flags.evmBaseUrl],
    ["--ledger-base-url", flags.ledgerBaseUrl],
    ["--ledger-testnet-base-url", flags.ledgerTestnetBaseUrl]
  ] as const
  for (const [field, url] of baseUrls) {
    if (Option.isNone(url)) continue
    const checked = BaseUrl.check(url.value, { field, allowInsecureHttp: flags.allowInsecureHttp, insecureOption: "--allow-insecure-http" })
    if (Result.isFailure(checked)) return checked.failure.message
  }
  return undefined
}
