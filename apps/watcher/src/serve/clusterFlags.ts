/**
 * The flags of `chainquery-watcher serve` that make it one runner of a cluster (`--cluster`, or
 * `CHAINQUERY_RUNNER_ADDRESS` set), and how they combine into the cluster's options: each value is
 * parsed by its flag (a bad one names the flag and what is valid, exit 2), then `clusterOf` checks
 * what only makes sense together.
 *
 * @internal
 */
import { readFileSync } from "node:fs"
import { isIP } from "node:net"
import { hostname } from "node:os"
import { Duration, Option, Result } from "effect"
import { Flag } from "effect/cli"
import type { ServiceCluster } from "@chainquery/watch-service"
import { message, parseDuration } from "../internal/flags.js"

/** The port a runner listens on for the others when its address names none. */
export const defaultRunnerPort = 34431

/** The defaults of the shard locks: a runner that vanished gives its work up within the expiration. */
export const defaultShardLockExpiration = Duration.seconds(30)
export const defaultShardLockRefresh = Duration.seconds(10)
/** The longest lock refresh: a runner's heartbeat must be less than a minute old while it runs. */
const maximumRefresh = Duration.seconds(20)

/**
 * Parses `HOST:PORT` (an IPv6 host in brackets: `[::1]:34431`) for `flag`; throws with what is
 * valid. `runner-1:34431` gives `{ host: "runner-1", port: 34431 }`.
 */
export const parseRunnerAddress = (flag: string) => (text: string): { readonly host: string; readonly port: number } => {
  const trimmed = text.trim()
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]/]+)):(\d{1,5})$/.exec(trimmed)
  const port = match === null ? Number.NaN : Number(match[3])
  if (match === null || !(port >= 1 && port <= 65_535)) {
    throw new Error(`${flag}: expected HOST:PORT with a port from 1 to 65535 (an IPv6 host in brackets: [::1]:34431), got ${JSON.stringify(text)}`)
  }
  return { host: match[1] ?? match[2]!, port }
}

export const cluster = Flag.Boolean("cluster").pipe(
  Flag.withDescription(
    "Run as one runner of a cluster: the runners sharing --database-url share the work (each chain's scan on one of them, each " +
      "stream's deliveries on one of them) and take over a runner's work when it stops or dies. Also on when " +
      "CHAINQUERY_RUNNER_ADDRESS is set. Needs --database-url (or DATABASE_URL). Example: --cluster --runner-address 10.0.0.5:34431"
  ),
  Flag.withDefault(false)
)

/** A `HOST:PORT` flag, optional, parsed by {@link parseRunnerAddress}. */
const addressFlag = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withMetavar("HOST:PORT"),
    Flag.withDescription(description),
    Flag.mapTryCatch(parseRunnerAddress(`--${name}`), message),
    Flag.optional
  )

export const runnerAddress = addressFlag(
  "runner-address",
  "Where the other runners reach this one (advertised; not 0.0.0.0); when absent, CHAINQUERY_RUNNER_ADDRESS, else this machine's " +
    `host name and port ${defaultRunnerPort}. Each runner needs its own; giving it turns --cluster on. Example: --runner-address 10.0.0.5:34431`
)

export const runnerListenAddress = addressFlag(
  "runner-listen-address",
  "Where this runner listens for the others, when not at its advertised address (behind NAT, in a container: 0.0.0.0:34431); " +
    "when absent, CHAINQUERY_RUNNER_LISTEN_ADDRESS, else the advertised address (only where it points; 0.0.0.0 for every interface). " +
    "Keep it on a private network: runners do not authenticate each other. Example: --runner-listen-address 0.0.0.0:34431"
)

export const shardLockExpiration = Flag.String("shard-lock-expiration").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "How long a runner that stopped answering keeps its work before the others take it over (at least 3s). Default 30s. " +
      "Example: --shard-lock-expiration 20s"
  ),
  Flag.mapTryCatch(parseDuration("shard-lock-expiration", Duration.seconds(3)), message),
  Flag.optional
)

export const shardLockRefresh = Flag.String("shard-lock-refresh").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "How often a runner renews its locks and checks that the others are alive (500ms to 20s, at most a third of " +
      "--shard-lock-expiration). Default 10s. Example: --shard-lock-refresh 5s"
  ),
  Flag.mapTryCatch((text) => {
    const refresh = parseDuration("shard-lock-refresh", Duration.millis(500))(text)
    // A runner heartbeats at each refresh: a single runner looks a minute back for a live cluster.
    if (Duration.isGreaterThan(refresh, maximumRefresh)) throw new Error(`--shard-lock-refresh: expected at most 20s, got ${JSON.stringify(text)}`)
    return refresh
  }, message),
  Flag.optional
)

export const runnerHealth = Flag.Literals("runner-health", ["ping", "k8s"]).pipe(
  Flag.withDescription(
    "How a runner tells whether another is alive: 'ping' it over the runners' connection, or 'k8s': ask Kubernetes whether its " +
      "pod is ready (the pod's service account may list pods). Default ping. Example: --runner-health k8s"
  ),
  Flag.optional
)

export const k8sNamespace = Flag.String("k8s-namespace").pipe(
  Flag.withMetavar("NAMESPACE"),
  Flag.withDescription(
    "With --runner-health k8s: the namespace of the runners' pods (default: POD_NAMESPACE, else the pod's service account's). Example: --k8s-namespace chainquery"
  ),
  Flag.optional
)

export const k8sLabelSelector = Flag.String("k8s-label-selector").pipe(
  Flag.withMetavar("SELECTOR"),
  Flag.withDescription("With --runner-health k8s: the label selector of the runners' pods. Example: --k8s-label-selector app=chainquery-watcher"),
  Flag.optional
)

/** The cluster flags, as `Command.make` takes them. */
export const all = {
  cluster,
  runnerAddress,
  runnerListenAddress,
  shardLockExpiration,
  shardLockRefresh,
  runnerHealth,
  k8sNamespace,
  k8sLabelSelector
}

/** The namespace of the pod's service account, when this runs in a Kubernetes pod that has one. */
export const serviceAccountNamespace = (): string | undefined => {
  try {
    return readFileSync("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "utf8")
  } catch {
    return undefined
  }
}

/** The parsed values of {@link all}. */
export interface ClusterFlags {
  readonly cluster: boolean
  readonly runnerAddress: Option.Option<{ readonly host: string; readonly port: number }>
  readonly runnerListenAddress: Option.Option<{ readonly host: string; readonly port: number }>
  readonly shardLockExpiration: Option.Option<Duration.Duration>
  readonly shardLockRefresh: Option.Option<Duration.Duration>
  readonly runnerHealth: Option.Option<"ping" | "k8s">
  readonly k8sNamespace: Option.Option<string>
  readonly k8sLabelSelector: Option.Option<string>
}

/** An address from the environment, parsed as its flag's would be. */
const parseEnvAddress = (variable: string, text: string) => Result.try({ try: () => parseRunnerAddress(variable)(text), catch: message })

/** A non-blank environment variable. */
const fromEnv = (env: Record<string, string | undefined>, name: string): string | undefined => {
  const value = env[name]
  return value === undefined || value.trim() === "" ? undefined : value
}

/**
 * The cluster's options from the flags and the environment, `undefined` for a single runner, or
 * what is wrong (the message of a `BadInput`): a cluster without a database URL, a refresh not
 * under a third of the expiration, a cluster flag without `--cluster`, a Kubernetes flag without
 * `--runner-health k8s`.
 */
export const clusterOf = (
  flags: ClusterFlags,
  options: {
    readonly hasDatabaseUrl: boolean
    readonly env: Record<string, string | undefined>
    /** The namespace of the pod's service account, when it runs in one (read from its file). */
    readonly serviceAccountNamespace?: string | undefined
  }
): Result.Result<ServiceCluster.ClusterOptions | undefined, string> => {
  const envAddress = fromEnv(options.env, "CHAINQUERY_RUNNER_ADDRESS")
  const envListen = fromEnv(options.env, "CHAINQUERY_RUNNER_LISTEN_ADDRESS")
  const on = flags.cluster || envAddress !== undefined || Option.isSome(flags.runnerAddress)
  const given: ReadonlyArray<readonly [string, boolean]> = [
    ["--runner-listen-address", Option.isSome(flags.runnerListenAddress)],
    ["--shard-lock-expiration", Option.isSome(flags.shardLockExpiration)],
    ["--shard-lock-refresh", Option.isSome(flags.shardLockRefresh)],
    ["--runner-health", Option.isSome(flags.runnerHealth)]
  ]
  if (!on) {
    const stray = given.find(([, isGiven]) => isGiven)
    return stray === undefined && Option.isNone(flags.k8sNamespace) && Option.isNone(flags.k8sLabelSelector)
      ? Result.succeed(undefined)
      : Result.fail(`${stray?.[0] ?? "--k8s-namespace/--k8s-label-selector"} is for a cluster: add --cluster (or set CHAINQUERY_RUNNER_ADDRESS)`)
  }
  if (!options.hasDatabaseUrl) {
    return Result.fail(
      "--cluster needs --database-url (or DATABASE_URL): the runners of a cluster share one PostgreSQL; the embedded one serves a single runner"
    )
  }
  const health = Option.getOrElse(flags.runnerHealth, () => "ping" as const)
  if (health !== "k8s" && (Option.isSome(flags.k8sNamespace) || Option.isSome(flags.k8sLabelSelector))) {
    return Result.fail("--k8s-namespace and --k8s-label-selector are for --runner-health k8s")
  }
  const expiration = Option.getOrElse(flags.shardLockExpiration, () => defaultShardLockExpiration)
  const refresh = Option.getOrElse(flags.shardLockRefresh, () => defaultShardLockRefresh)
  if (Duration.isGreaterThan(Duration.times(refresh, 3), expiration)) {
    return Result.fail(
      `--shard-lock-refresh (${Duration.format(refresh)}) must be at most a third of --shard-lock-expiration (${Duration.format(expiration)}), ` +
        "so that a runner renews its locks well before they expire"
    )
  }
  const advertised = Option.isSome(flags.runnerAddress)
    ? Result.succeed(flags.runnerAddress.value)
    : envAddress === undefined
    ? Result.succeed({ host: hostname(), port: defaultRunnerPort })
    : parseEnvAddress("CHAINQUERY_RUNNER_ADDRESS", envAddress)
  if (Result.isFailure(advertised)) return Result.fail(advertised.failure)
  if (advertised.success.host === "localhost" && advertised.success.port === defaultRunnerPort) {
    return Result.fail(
      `the runner address localhost:${defaultRunnerPort} is the name of a runner that runs alone (without --cluster): give another address or port`
    )
  }
  if (unspecified.has(advertised.success.host)) {
    return Result.fail(
      `the runner address ${advertised.success.host}:${advertised.success.port} is where the other runners reach this one: give one they can reach ` +
        "(every interface, 0.0.0.0, is for --runner-listen-address)"
    )
  }
  // The runners' protocol is not authenticated: listen only where the advertised address points (this
  // host's name by default), unless told where; every interface only when asked (0.0.0.0).
  const listen = Option.isSome(flags.runnerListenAddress)
    ? Result.succeed(flags.runnerListenAddress.value)
    : envListen !== undefined
    ? parseEnvAddress("CHAINQUERY_RUNNER_LISTEN_ADDRESS", envListen)
    : Result.succeed(advertised.success)
  if (Result.isFailure(listen)) return Result.fail(listen.failure)
  if (health !== "k8s") {
    return Result.succeed({
      runnerAddress: advertised.success,
      listenAddress: listen.success,
      shardLockExpiration: expiration,
      shardLockRefresh: refresh,
      health: { _tag: "ping" }
    })
  }
  // Kubernetes tells the runners apart by their pods' IP addresses, and lists the pods of one namespace.
  if (isIP(advertised.success.host) === 0) {
    return Result.fail(
      `with --runner-health k8s, the runner address must be the pod's IP address, got ${JSON.stringify(advertised.success.host)}: ` +
        "set CHAINQUERY_RUNNER_ADDRESS to $(POD_IP):34431 (see SERVE.md)"
    )
  }
  const namespace = Option.getOrUndefined(flags.k8sNamespace) ?? fromEnv(options.env, "POD_NAMESPACE") ?? options.serviceAccountNamespace?.trim()
  if (namespace === undefined || namespace === "") {
    return Result.fail("--runner-health k8s needs the pods' namespace: give --k8s-namespace, or set POD_NAMESPACE (outside a pod's service account)")
  }
  return Result.succeed({
    runnerAddress: advertised.success,
    listenAddress: listen.success,
    shardLockExpiration: expiration,
    shardLockRefresh: refresh,
    health: { _tag: "k8s", namespace, labelSelector: Option.getOrUndefined(flags.k8sLabelSelector) }
  })
}

/** Addresses that name every interface, not one a runner can be reached at. */
const unspecified: ReadonlySet<string> = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0"])
