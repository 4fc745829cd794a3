/**
 * `chainquery-watcher serve`: the watcher as a service (see `ServiceMain`). Its flags are checked
 * before anything starts: a bad one, a missing API token or key, a secret file that cannot be
 * read, a secrets key that is not 32 bytes, or a base URL the key may not go to is a `BadInput`
 * (exit 2) that says what is valid.
 *
 * @since 0.2.0
 */
import { Duration, Effect, Option, Redacted, Result } from "effect"
import { Command } from "effect/cli"
import { badInput } from "./internal/badInput.js"
import * as ClusterFlags from "./serve/clusterFlags.js"
import * as Flags from "./internal/flags.js"
import { useHeapMode } from "./serve/heapMode.js"
import * as ServeFlags from "./serve/serveFlags.js"
import { secretOf } from "./internal/secretSource.js"
import { apiKeyOf, refusedBaseUrl } from "./internal/serviceAccess.js"
import * as ServiceMain from "./ServiceMain.js"
import { StreamSecrets } from "@chainquery/watch-service"

/** The shortest API token accepted: a short one can be guessed. */
const minimumTokenLength = 16

/** An environment variable's value (unset or blank: `undefined`). */
const nonBlankEnv = (variable: string): Redacted.Redacted<string> | undefined => {
  const value = process.env[variable]
  return value === undefined || value.trim() === "" ? undefined : Redacted.make(value)
}

const apiTokenNames = { flag: "--api-token", fileFlag: "--api-token-file", env: "CHAINQUERY_API_TOKEN" }
const secretsKeyNames = { flag: "--secrets-key", fileFlag: "--secrets-key-file", env: "CHAINQUERY_SECRETS_KEY" }

/** The secrets key given (`undefined`: none), read as 32 bytes, or why it cannot be (never showing it). */
const secretsKeyOf = (
  flags: { readonly secretsKey: Option.Option<Redacted.Redacted<string>>; readonly secretsKeyFile: Option.Option<string> }
): Result.Result<Redacted.Redacted<Uint8Array> | undefined, string> => {
  const text = secretOf(secretsKeyNames, { value: flags.secretsKey, file: flags.secretsKeyFile })
  if (Result.isFailure(text) || text.success === undefined) return Result.map(text, () => undefined)
  const key = StreamSecrets.parseKey(text.success)
  if (key !== undefined) return Result.succeed(key)
  const where = Option.isSome(flags.secretsKeyFile) ? "--secrets-key-file" : Option.isSome(flags.secretsKey) ? "--secrets-key" : "CHAINQUERY_SECRETS_KEY"
  return Result.fail(`${where}: expected ${StreamSecrets.keyFormat}, got ${Redacted.value(text.success).trim().length} characters that are neither`)
}

/**
 * The `serve` subcommand.
 *
 * @example
 * ```ts
 * import { Serve } from "@chainquery/watcher"
 *
 * const name = Serve.command.name // "serve"
 * ```
 * @since 0.2.0
 */
export const command = Command.make(
  "serve",
  {
    port: ServeFlags.port,
    host: ServeFlags.host,
    apiToken: ServeFlags.apiToken,
    databaseUrl: ServeFlags.databaseUrl,
    dataDir: ServeFlags.dataDir,
    allowPrivateWebhooks: ServeFlags.allowPrivateWebhooks,
    retrySchedule: ServeFlags.retrySchedule,
    deliveryTimeout: ServeFlags.deliveryTimeout,
    deliveryConcurrency: ServeFlags.deliveryConcurrency,
    minSuccessRate: ServeFlags.minSuccessRate,
    heartbeat: ServeFlags.heartbeat,
    logFormat: ServeFlags.logFormat,
    otlpUrl: ServeFlags.otlpUrl,
    memory: ServeFlags.memory,
    interval: Flags.interval,
    httpHeaderTimeout: ServeFlags.httpHeaderTimeout,
    httpRequestTimeout: ServeFlags.httpRequestTimeout,
    httpIdleTimeout: ServeFlags.httpIdleTimeout,
    httpMaxConnections: ServeFlags.httpMaxConnections,
    ...ClusterFlags.all,
    ...Flags.serviceAccess,
    ...ServeFlags.secretSources
  },
  Effect.fnUntraced(function*(flags) {
    const token = secretOf(apiTokenNames, { value: flags.apiToken, file: flags.apiTokenFile })
    if (Result.isFailure(token)) return yield* badInput(token.failure)
    const apiToken = token.success
    if (apiToken === undefined || Redacted.value(apiToken).length < minimumTokenLength) {
      return yield* badInput(
        `${apiToken === undefined ? "no API token" : `the API token is shorter than ${minimumTokenLength} characters`}: ` +
          "give --api-token-file PATH or set CHAINQUERY_API_TOKEN (make one with: openssl rand -hex 24)"
      )
    }
    const secretsKey = secretsKeyOf(flags)
    if (Result.isFailure(secretsKey)) return yield* badInput(secretsKey.failure)
    const key = apiKeyOf(flags)
    if (Result.isFailure(key)) return yield* badInput(key.failure)
    const refused = refusedBaseUrl(flags)
    if (refused !== undefined) return yield* badInput(refused)
    const databaseUrl = Option.isSome(flags.databaseUrl) ? flags.databaseUrl.value : nonBlankEnv("DATABASE_URL")
    if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(Redacted.value(databaseUrl))) {
      return yield* badInput("--database-url (or DATABASE_URL) must be a postgres:// or postgresql:// URL")
    }
    if (Option.isSome(flags.otlpUrl) && !/^https?:\/\//.test(flags.otlpUrl.value)) {
      return yield* badInput(`--otlp-url must be an http:// or https:// URL, got ${JSON.stringify(flags.otlpUrl.value)}`)
    }
    if (Duration.isGreaterThan(flags.httpHeaderTimeout, flags.httpRequestTimeout)) {
      return yield* badInput(
        `--http-header-timeout (${Duration.format(flags.httpHeaderTimeout)}) must be at most --http-request-timeout ` +
          `(${Duration.format(flags.httpRequestTimeout)}): the headers are part of the request`
      )
    }
    const cluster = ClusterFlags.clusterOf(flags, {
      hasDatabaseUrl: databaseUrl !== undefined,
      env: process.env,
      serviceAccountNamespace: ClusterFlags.serviceAccountNamespace()
    })
    if (Result.isFailure(cluster)) return yield* badInput(cluster.failure)
    // Before anything is loaded: the heap grows as the mode says from the first wallet on.
    useHeapMode(flags.memory)
    return yield* ServiceMain.run({
      host: flags.host,
      port: flags.port,
      apiToken,
      databaseUrl,
      dataDir: flags.dataDir,
      allowPrivateWebhooks: flags.allowPrivateWebhooks,
      retrySchedule: flags.retrySchedule,
      deliveryTimeout: flags.deliveryTimeout,
      deliveryConcurrency: flags.deliveryConcurrency,
      minSuccessRate: flags.minSuccessRate,
      interval: flags.interval,
      heartbeat: flags.heartbeat,
      logFormat: flags.logFormat,
      otlpUrl: Option.getOrUndefined(flags.otlpUrl),
      cluster: cluster.success,
      secretsKey: secretsKey.success,
      httpLimits: {
        headerTimeout: flags.httpHeaderTimeout,
        requestTimeout: flags.httpRequestTimeout,
        idleTimeout: flags.httpIdleTimeout,
        maxConnections: flags.httpMaxConnections
      },
      apiKey: key.success,
      evmBaseUrl: Option.getOrUndefined(flags.evmBaseUrl),
      ledgerBaseUrl: Option.getOrUndefined(flags.ledgerBaseUrl),
      ledgerTestnetBaseUrl: Option.getOrUndefined(flags.ledgerTestnetBaseUrl),
      allowInsecureHttp: flags.allowInsecureHttp,
      requestTimeout: flags.requestTimeout,
      computeUnits: Option.getOrUndefined(flags.computeUnits)
    })
  })
).pipe(
  Command.withDescription(
    "Run the watcher as a service: streams of wallets with signed webhooks (Standard Webhooks), a management API " +
      "(/openapi.json, /docs), /metrics, /healthz and /readyz, on PostgreSQL (--database-url, or an embedded one)."
  ),
  Command.withExamples([
    {
      command: "chainquery-watcher serve --api-token-file ./api-token --api-key-file ./moralis-api-key --port 8080",
      description: "Serve on 127.0.0.1:8080 with an embedded PostgreSQL in ./chainquery-data (make the token with: openssl rand -hex 24 > api-token)"
    },
    {
      command: "chainquery-watcher serve --cluster --secrets-key-file /run/secrets/chainquery-secrets-key --runner-address 10.0.0.5:34431 --host 0.0.0.0",
      description: "Run one runner of a cluster on the database of DATABASE_URL (with CHAINQUERY_API_TOKEN and MORALIS_API_KEY set): " +
        "start as many as wanted, each with its own address and the same secrets key"
    }
  ])
)
