/**
 * The environment a child process of the watcher gets: only the variables it needs, never the
 * parent's secrets (the API token, the data API key, the database URL, a secrets key) which
 * anyone who can read `/proc/<pid>/environ` of that child (for the embedded PostgreSQL, the
 * `postgres` user) would otherwise learn.
 *
 * @internal
 */

/** The variables passed on: where programs are, the time zone, the temporary folder. */
const passedOn = ["PATH", "TZ", "TMPDIR"] as const

/**
 * The environment for a child: the few harmless variables of `parent` it needs, the C locale (so
 * its messages are the ones we read), and `extra`.
 *
 * `childEnvironment({ PATH: "/usr/bin", CHAINQUERY_API_TOKEN: "t" })` is
 * `{ PATH: "/usr/bin", LC_ALL: "C", LC_MESSAGES: "C" }`.
 *
 * @internal
 */
export const childEnvironment = (
  parent: NodeJS.ProcessEnv = process.env,
  extra: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const name of passedOn) {
    const value = parent[name]
    if (value !== undefined) kept[name] = value
  }
  return { ...kept, LC_ALL: "C", LC_MESSAGES: "C", ...extra }
}
