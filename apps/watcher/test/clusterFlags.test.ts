/**
 * How the cluster flags and the environment combine (`clusterOf`): off by default, on with
 * `--cluster`, `--runner-address` or `CHAINQUERY_RUNNER_ADDRESS`, with the documented defaults;
 * the Kubernetes health mode carried through; what only makes sense together refused with what
 * is valid (the process test checks the exit code 2 of each).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Option, Result } from "effect"
import { hostname } from "node:os"
import { type ClusterFlags, clusterOf, parseRunnerAddress } from "../src/serve/clusterFlags.js"

const none: ClusterFlags = {
  cluster: false,
  runnerAddress: Option.none(),
  runnerListenAddress: Option.none(),
  shardLockExpiration: Option.none(),
  shardLockRefresh: Option.none(),
  runnerHealth: Option.none(),
  k8sNamespace: Option.none(),
  k8sLabelSelector: Option.none()
}

const withDatabase = (env: Record<string, string | undefined> = {}) => ({ hasDatabaseUrl: true, env })

/** The health mode `clusterOf` makes of these. */
const health = (flags: ClusterFlags, options: Parameters<typeof clusterOf>[1]) => Result.getOrThrow(clusterOf(flags, options))!.health

describe("the cluster flags", () => {
  it("off unless asked: a single runner", () => {
    assert.deepStrictEqual(clusterOf(none, withDatabase()), Result.succeed(undefined))
    assert.deepStrictEqual(clusterOf(none, withDatabase({ CHAINQUERY_RUNNER_ADDRESS: "  " })), Result.succeed(undefined))
  })

  it("--cluster alone: this host's name at port 34431, listening only there (not on every interface), locks of 30s renewed every 10s, ping", () => {
    const cluster = Result.getOrThrow(clusterOf({ ...none, cluster: true }, withDatabase()))!
    assert.deepStrictEqual(cluster.runnerAddress, { host: hostname(), port: 34431 })
    // The runners' protocol is not authenticated: every interface only when asked.
    assert.deepStrictEqual(cluster.listenAddress, { host: hostname(), port: 34431 })
    assert.strictEqual(Duration.toMillis(cluster.shardLockExpiration), 30_000)
    assert.strictEqual(Duration.toMillis(cluster.shardLockRefresh), 10_000)
    assert.deepStrictEqual(cluster.health, { _tag: "ping" })
  })

  it("an address given: it listens there, unless told where (--runner-listen-address, then CHAINQUERY_RUNNER_LISTEN_ADDRESS)", () => {
    const address = Option.some({ host: "10.0.0.5", port: 4000 })
    const given = Result.getOrThrow(clusterOf({ ...none, runnerAddress: address }, withDatabase()))!
    assert.deepStrictEqual(given.listenAddress, { host: "10.0.0.5", port: 4000 })
    const everywhere = { ...none, runnerAddress: address, runnerListenAddress: Option.some({ host: "0.0.0.0", port: 4000 }) }
    assert.deepStrictEqual(Result.getOrThrow(clusterOf(everywhere, withDatabase()))!.listenAddress, { host: "0.0.0.0", port: 4000 })
    const fromEnv = clusterOf({ ...none, cluster: true }, withDatabase({ CHAINQUERY_RUNNER_LISTEN_ADDRESS: "10.0.0.9:4001" }))
    assert.deepStrictEqual(Result.getOrThrow(fromEnv)!.listenAddress, { host: "10.0.0.9", port: 4001 })
  })

  it("CHAINQUERY_RUNNER_ADDRESS turns it on; the flags win over the environment", () => {
    const fromEnv = Result.getOrThrow(clusterOf(none, withDatabase({ CHAINQUERY_RUNNER_ADDRESS: "10.0.0.5:4000", CHAINQUERY_RUNNER_LISTEN_ADDRESS: "0.0.0.0:4000" })))!
    assert.deepStrictEqual([fromEnv.runnerAddress, fromEnv.listenAddress], [{ host: "10.0.0.5", port: 4000 }, { host: "0.0.0.0", port: 4000 }])
    const fromFlag = Result.getOrThrow(clusterOf({ ...none, runnerAddress: Option.some({ host: "::1", port: 5000 }) }, withDatabase({ CHAINQUERY_RUNNER_ADDRESS: "10.0.0.5:4000" })))!
    assert.deepStrictEqual(fromFlag.runnerAddress, { host: "::1", port: 5000 })
  })

  it("--runner-health k8s: the pod's IP address, its namespace (flag, POD_NAMESPACE, the service account's) and label selector", () => {
    const k8s: ClusterFlags = { ...none, runnerAddress: Option.some({ host: "10.1.2.3", port: 34431 }), runnerHealth: Option.some("k8s") }
    assert.deepStrictEqual(
      health({ ...k8s, k8sNamespace: Option.some("chainquery"), k8sLabelSelector: Option.some("app=watcher") }, withDatabase({ POD_NAMESPACE: "other" })),
      { _tag: "k8s", namespace: "chainquery", labelSelector: "app=watcher" }
    )
    assert.deepStrictEqual(health(k8s, { ...withDatabase({ POD_NAMESPACE: "from-env" }), serviceAccountNamespace: "from-file" }), {
      _tag: "k8s",
      namespace: "from-env",
      labelSelector: undefined
    })
    assert.deepStrictEqual(health(k8s, { ...withDatabase(), serviceAccountNamespace: "from-file\n" }), { _tag: "k8s", namespace: "from-file", labelSelector: undefined })
  })

  it("refuses what does not go together, saying what is valid", () => {
    const refused = (flags: ClusterFlags, options = withDatabase()) => Result.match(clusterOf(flags, options), { onSuccess: () => "", onFailure: (why) => why })
    assert.match(refused({ ...none, cluster: true }, { hasDatabaseUrl: false, env: {} }), /--cluster needs --database-url/)
    assert.match(refused({ ...none, shardLockRefresh: Option.some(Duration.seconds(1)) }), /--shard-lock-refresh is for a cluster/)
    assert.match(refused({ ...none, k8sLabelSelector: Option.some("app=x") }), /is for a cluster/)
    assert.match(refused({ ...none, cluster: true, k8sNamespace: Option.some("x") }), /are for --runner-health k8s/)
    assert.match(
      refused({ ...none, cluster: true, shardLockExpiration: Option.some(Duration.seconds(6)), shardLockRefresh: Option.some(Duration.seconds(3)) }),
      /--shard-lock-refresh \(3s\) must be at most a third of --shard-lock-expiration \(6s\)/
    )
    assert.match(refused(none, withDatabase({ CHAINQUERY_RUNNER_ADDRESS: "no-port" })), /CHAINQUERY_RUNNER_ADDRESS: expected HOST:PORT/)
    assert.match(refused(none, withDatabase({ CHAINQUERY_RUNNER_ADDRESS: "0.0.0.0:34431" })), /is where the other runners reach this one: give one they can reach/)
    assert.match(refused({ ...none, runnerAddress: Option.some({ host: "::", port: 1 }) }), /give one they can reach/)
    assert.match(refused({ ...none, runnerAddress: Option.some({ host: "localhost", port: 34431 }) }), /the name of a runner that runs alone/)
    const k8s: ClusterFlags = { ...none, cluster: true, runnerHealth: Option.some("k8s"), k8sNamespace: Option.some("x") }
    assert.match(refused({ ...k8s, runnerAddress: Option.some({ host: "watcher-0", port: 34431 }) }), /the runner address must be the pod's IP address/)
    assert.match(refused({ ...k8s, runnerAddress: Option.some({ host: "10.1.2.3", port: 34431 }), k8sNamespace: Option.none() }), /needs the pods' namespace/)
  })

  it("reads HOST:PORT, an IPv6 host in brackets, and refuses the rest", () => {
    assert.deepStrictEqual(parseRunnerAddress("--runner-address")("runner-1:34431"), { host: "runner-1", port: 34431 })
    assert.deepStrictEqual(parseRunnerAddress("--runner-address")("[fd00::5]:34431"), { host: "fd00::5", port: 34431 })
    for (const text of ["runner-1", ":34431", "runner-1:0", "runner-1:65536", "a b:1", "fd00::5:34431", "http://x:1"]) {
      assert.throws(() => parseRunnerAddress("--runner-address")(text), /--runner-address: expected HOST:PORT/)
    }
  })
})
