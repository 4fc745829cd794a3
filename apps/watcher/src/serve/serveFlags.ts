/**
 * The flags of `chainquery-watcher serve` that the watching CLI does not have, parsed and
 * checked: a bad value is a flag error (exit 2) that names the flag and says what is valid.
 *
 * @internal
 */
import { DurationInput } from "@chainquery/schema"
import { Duration } from "effect"
import { Flag } from "effect/cli"
import { message, percentOf } from "../internal/flags.js"

/** Parses `--retry-schedule`: comma-separated durations (1 to 20, each at least 100ms); throws with what is valid. */
export const parseRetrySchedule = (text: string): ReadonlyArray<Duration.Duration> => {
  const parts = text.split(",").map((part) => part.trim())
  if (parts.length > 20 || parts.some((part) => part === "")) {
    throw new Error(`--retry-schedule: expected 1 to 20 comma-separated durations such as 10s,1m,10m, got ${JSON.stringify(text)}`)
  }
  return parts.map((part) => DurationInput.parseFlagUnsafe("--retry-schedule", part, { minimum: "100 millis" }))
}

export const port = Flag.Int("port").pipe(
  Flag.withMetavar("PORT"),
  Flag.withDescription("The TCP port of the HTTP API, /metrics and the probes (default 8080; 0: a free one, printed). Example: --port 9000"),
  Flag.withDefault(8080),
  Flag.mapTryCatch((n) => {
    if (n < 0 || n > 65_535) throw new Error(`--port: expected 0 to 65535, got ${n}`)
    return n
  }, message)
)

export const host = Flag.String("host").pipe(
  Flag.withMetavar("HOST"),
  Flag.withDescription("The address to listen on (default 127.0.0.1; 0.0.0.0 for every interface). Example: --host 0.0.0.0"),
  Flag.withDefault("127.0.0.1")
)

export const apiToken = Flag.Redacted("api-token").pipe(
  Flag.withMetavar("TOKEN"),
  Flag.withDescription(
    "The bearer token of the management API (at least 16 characters) on the command line: discouraged, as every user of the machine " +
      "can read a process's arguments (ps); prefer --api-token-file or the CHAINQUERY_API_TOKEN environment variable. Never printed."
  ),
  Flag.optional
)

export const databaseUrl = Flag.Redacted("database-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "The PostgreSQL (>= 14) to keep everything in; when absent, the DATABASE_URL environment variable (where a URL with a password " +
      "belongs: the command line is visible to every user of the machine); without either, an embedded PostgreSQL in --data-dir. " +
      "Never printed. Example: --database-url postgres://watcher@db:5432/watcher (the password in ~/.pgpass or DATABASE_URL)"
  ),
  Flag.optional
)

export const dataDir = Flag.String("data-dir").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription("Where the embedded PostgreSQL keeps its files when no database URL is given (default ./chainquery-data). Example: --data-dir /var/lib/chainquery"),
  Flag.withDefault("./chainquery-data")
)

export const allowPrivateWebhooks = Flag.Boolean("allow-private-webhooks").pipe(
  Flag.withDescription(
    "Deliver to webhook URLs on loopback, private, link-local and cloud-metadata addresses (refused otherwise, at creation and at delivery). " +
      "For tests and receivers on the same private network. Example: --allow-private-webhooks"
  ),
  Flag.withDefault(false)
)

export const retrySchedule = Flag.String("retry-schedule").pipe(
  Flag.withMetavar("DURATIONS"),
  Flag.withDescription(
    "The waits between a webhook's attempts, comma-separated; after the last, the batch is failed (kept, replayable). " +
      "Default 10s,1m,10m,1h,6h,24h. Example: --retry-schedule 1s,2s,5s"
  ),
  Flag.withDefault("10s,1m,10m,1h,6h,24h"),
  Flag.mapTryCatch(parseRetrySchedule, message)
)

export const deliveryTimeout = Flag.String("delivery-timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription("How long a receiver may take to answer a webhook before the attempt counts as failed (default 10s). Example: --delivery-timeout 5s"),
  Flag.withDefault("10s"),
  Flag.mapTryCatch((text) => DurationInput.parseFlagUnsafe("--delivery-timeout", text, { minimum: "100 millis" }), message)
)

export const minSuccessRate = Flag.String("min-success-rate").pipe(
  Flag.withMetavar("PERCENT"),
  Flag.withDescription(
    "A stream whose last 100 attempts succeeded less than this is put in error (held until resumed); 0 turns it off. Default 70. " +
      "Example: --min-success-rate 50"
  ),
  Flag.withDefault("70"),
  Flag.mapTryCatch(percentOf("min-success-rate"), message)
)

export const heartbeat = Flag.String("heartbeat").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "When a stream made no batch for this long, send it one with no events and the blocks it covers, so that a quiet stream can be " +
      "told from a broken one; 0 turns heartbeats off. Default 5m. Example: --heartbeat 1m"
  ),
  Flag.withDefault("5m"),
  Flag.mapTryCatch(
    (text) => text.trim() === "0" ? Duration.zero : DurationInput.parseFlagUnsafe("--heartbeat", text, { minimum: "1 second" }),
    message
  )
)

export const deliveryConcurrency = Flag.Int("delivery-concurrency").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "How many webhook requests one runner has in flight at once, over all its streams (each stream's go one at a time, in order); " +
      "more runners deliver to more streams at once. 1 to 10000, default 64. Example: --delivery-concurrency 256"
  ),
  Flag.withDefault(64),
  Flag.mapTryCatch((n) => {
    if (n < 1 || n > 10_000) throw new Error(`--delivery-concurrency: expected 1 to 10000, got ${n}`)
    return n
  }, message)
)

export const logFormat = Flag.Literals("log-format", ["pretty", "json"]).pipe(
  Flag.withDescription("How logs are written to stderr: 'pretty' lines or 'json' (one object per line). Default pretty. Example: --log-format json"),
  Flag.withDefault("pretty")
)

export const otlpUrl = Flag.String("otlp-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription("Send traces, metrics and logs over OTLP/HTTP (JSON) to this collector. Example: --otlp-url http://127.0.0.1:4318"),
  Flag.optional
)

export const memory = Flag.Literals("memory", ["lean", "fast"]).pipe(
  Flag.withDescription(
    "How the JavaScript heap trades memory for CPU: 'lean' keeps it close to what is live (about 0.85 KB per watched wallet at 100,000) " +
      "for more CPU, above all while wallets are added in bulk; 'fast' lets it grow for speed. Default lean. Example: --memory fast"
  ),
  Flag.withDefault("lean")
)

// Secrets read from files (see `secretSource.ts`), and the key of the streams' secrets at rest.

export const apiTokenFile = Flag.String("api-token-file").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "A file holding the management API's bearer token (a trailing newline is ignored); not with --api-token. Without either, the " +
      "CHAINQUERY_API_TOKEN environment variable. Make one: openssl rand -hex 24 > token && chmod 600 token. Example: --api-token-file /run/secrets/chainquery-api-token"
  ),
  Flag.optional
)

export const secretsKey = Flag.Redacted("secrets-key").pipe(
  Flag.withMetavar("KEY"),
  Flag.withDescription(
    "The key that encrypts the streams' webhook secrets in the database (AES-256-GCM): 32 bytes as base64 or hex. On the command line: " +
      "discouraged (ps shows it); prefer --secrets-key-file or the CHAINQUERY_SECRETS_KEY environment variable. Never printed."
  ),
  Flag.optional
)

export const secretsKeyFile = Flag.String("secrets-key-file").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "A file holding the key that encrypts the streams' webhook secrets in the database: 32 bytes as base64 (44 characters) or hex " +
      "(64 digits); not with --secrets-key. Without either, CHAINQUERY_SECRETS_KEY; without any, secrets are stored as they are. Every " +
      "runner of a database needs the same key. Make one: openssl rand -base64 32 > secrets.key && chmod 600 secrets.key. " +
      "Example: --secrets-key-file /run/secrets/chainquery-secrets-key"
  ),
  Flag.optional
)

/** The flags `serve` adds for its secrets: the token's file, and the secrets key (its file, or discouraged, the key itself). */
export const secretSources = { apiTokenFile, secretsKey, secretsKeyFile }

// The HTTP server's limits (see `HttpLimits` in `@chainquery/watch-service`).

/** A duration flag of the HTTP server: at least 100ms, defaulting to `fallback`. */
const httpDuration = (name: string, fallback: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("DURATION"),
    Flag.withDescription(description),
    Flag.withDefault(fallback),
    Flag.mapTryCatch((text) => DurationInput.parseFlagUnsafe(`--${name}`, text, { minimum: "100 millis" }), message)
  )

export const httpHeaderTimeout = httpDuration(
  "http-header-timeout",
  "10s",
  "How long a connection to the HTTP API has to send a request's headers, from when it opens or its answer before; " +
    "past it, it is closed (a connection that sends nothing too). At most --http-request-timeout. Default 10s. Example: --http-header-timeout 5s"
)

export const httpRequestTimeout = httpDuration(
  "http-request-timeout",
  "60s",
  "How long a connection to the HTTP API has to send a whole request, headers and body; past it, 408 and closed. " +
    "Default 60s. Example: --http-request-timeout 30s"
)

export const httpIdleTimeout = httpDuration(
  "http-idle-timeout",
  "65s",
  "How long a connection to the HTTP API may stay idle after an answer before it is closed (keep it longer than the idle " +
    "timeout of a load balancer in front, 60s for most). Default 65s. Example: --http-idle-timeout 30s"
)

export const httpMaxConnections = Flag.Int("http-max-connections").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "The most connections the HTTP API holds open at once; more are closed as they come. 1 to 1000000, default 1000. " +
      "Example: --http-max-connections 200"
  ),
  Flag.withDefault(1_000),
  Flag.mapTryCatch((n) => {
    if (n < 1 || n > 1_000_000) throw new Error(`--http-max-connections: expected 1 to 1000000, got ${n}`)
    return n
  }, message)
)
