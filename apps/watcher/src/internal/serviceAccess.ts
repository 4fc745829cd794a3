/**
 * How the CLI and `serve` reach the service: the API key (`--api-key-file`, `--api-key` or
 * `MORALIS_API_KEY`; an empty one is refused), and the base URLs it may be sent to (https:, or http: to a loopback
 * host, unless `--allow-insecure-http`).
 *
 * @internal
 */
import { BaseUrl } from "@chainquery/transport"
import { Option, Redacted, Result } from "effect"
import { secretOf } from "./secretSource.js"

/** The API key (`--api-key-file`, `--api-key` or `MORALIS_API_KEY`), or why there is none. */
export const apiKeyOf = (
  flags: { readonly apiKey: Option.Option<Redacted.Redacted<string>>; readonly apiKeyFile: Option.Option<string> }
): Result.Result<Redacted.Redacted<string>, string> => {
  const key = secretOf({ flag: "--api-key", fileFlag: "--api-key-file", env: "MORALIS_API_KEY" }, { value: flags.apiKey, file: flags.apiKeyFile })
  if (Result.isFailure(key)) return Result.fail(key.failure)
  if (key.success !== undefined && Redacted.value(key.success).trim() !== "") return Result.succeed(key.success)
  return Result.fail("no API key (or an empty one): give --api-key-file PATH or set the MORALIS_API_KEY environment variable")
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
