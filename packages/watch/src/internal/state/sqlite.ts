/**
 * The SQLite side of the state store: loading `node:sqlite` without its ExperimentalWarning,
 * opening a database with the pragmas that make a committed transaction durable, and the
 * tables.
 *
 * @internal
 */
import type { DatabaseSync } from "node:sqlite"

type SqliteModule = typeof import("node:sqlite")

let loaded: SqliteModule | undefined

const isSqliteWarning = (warning: string | Error, rest: ReadonlyArray<unknown>): boolean => {
  const option = rest[0]
  const type = typeof warning === "string"
    ? typeof option === "string" ? option : (option as { readonly type?: unknown } | undefined)?.type
    : warning.name
  const text = typeof warning === "string" ? warning : warning.message
  return type === "ExperimentalWarning" && /sqlite/i.test(text)
}

/**
 * `node:sqlite`, loaded once. Node prints "SQLite is an experimental feature" the first time the
 * module is loaded; exactly that warning is dropped (every other warning, including other
 * ExperimentalWarnings, still goes through), and `process.emitWarning` is restored at once.
 */
export const loadSqlite = (): SqliteModule => {
  if (loaded !== undefined) return loaded
  const emitWarning = process.emitWarning
  process.emitWarning = function(this: unknown, warning: string | Error, ...rest: Array<unknown>): void {
    if (isSqliteWarning(warning, rest)) return
    Reflect.apply(emitWarning, process, [warning, ...rest])
  } as typeof process.emitWarning
  let module: SqliteModule | undefined
  try {
    // Older Node versions have no `getBuiltinModule`, or no `node:sqlite` behind it.
    module = typeof process.getBuiltinModule === "function" ? process.getBuiltinModule("node:sqlite") : undefined
  } finally {
    process.emitWarning = emitWarning
  }
  if (module === undefined) {
    throw new Error(`node:sqlite is not available in Node ${process.versions.node}: the watcher needs Node >= 22.19 (./run brings one)`)
  }
  loaded = module
  return loaded
}

/** The layout version written to `PRAGMA user_version`. */
export const layoutVersion = 3

const tables = `
CREATE TABLE IF NOT EXISTS checkpoints (
  scope TEXT NOT NULL,
  wallet TEXT NOT NULL,
  position INTEGER NOT NULL,
  hash TEXT,
  since INTEGER,
  PRIMARY KEY (scope, wallet)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS block_hashes (
  chain TEXT NOT NULL,
  number INTEGER NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (chain, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS defi_snapshots (
  chain TEXT NOT NULL,
  wallet TEXT NOT NULL,
  block INTEGER NOT NULL,
  summaries TEXT NOT NULL,
  PRIMARY KEY (chain, wallet)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS block_events (
  chain TEXT NOT NULL,
  number INTEGER NOT NULL,
  hash TEXT NOT NULL,
  events TEXT NOT NULL,
  PRIMARY KEY (chain, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS last_batch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  sequence INTEGER NOT NULL,
  committed_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pending_events (
  position INTEGER PRIMARY KEY,
  event TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS last_batch_events (
  position INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS backfills (
  chain TEXT NOT NULL,
  wallet TEXT NOT NULL,
  label TEXT NOT NULL,
  origin INTEGER,
  through INTEGER,
  from_date INTEGER,
  up_to INTEGER NOT NULL,
  since INTEGER,
  PRIMARY KEY (chain, wallet)
) WITHOUT ROWID;
`

/**
 * Opens (creating if needed) a state database: an exclusive lock held until it is closed (a
 * second watcher on the same file fails to open it, after a short wait, instead of mixing its
 * checkpoints in), WAL journal, `synchronous = FULL` (every commit is fsynced before it
 * returns), and the tables. Throws on failure, or when the file was written by a newer layout.
 */
export const openDatabase = (path: string): DatabaseSync => {
  const { DatabaseSync } = loadSqlite()
  const db = new DatabaseSync(path, { readBigInts: true, timeout: 5_000 })
  try {
    db.exec("PRAGMA locking_mode = EXCLUSIVE")
    db.exec("PRAGMA journal_mode = WAL")
    db.exec("PRAGMA synchronous = FULL")
    const version = Number(db.prepare("PRAGMA user_version").get()?.["user_version"] ?? 0)
    if (version > layoutVersion) {
      throw new Error(`it was written by a newer watcher (state layout ${version}, this one knows ${layoutVersion})`)
    }
    db.exec("BEGIN IMMEDIATE")
    try {
      db.exec(tables)
      // Layout 1 had no `since` column: its wallets keep NULL there (every block before them is theirs).
      const columns = db.prepare("PRAGMA table_info(checkpoints)").all().map((column) => String(column["name"]))
      if (!columns.includes("since")) db.exec("ALTER TABLE checkpoints ADD COLUMN since INTEGER")
      db.exec(`PRAGMA user_version = ${layoutVersion}`)
      db.exec("COMMIT")
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK")
      throw error
    }
    return db
  } catch (error) {
    db.close()
    if (error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message)) {
      throw new Error(`${error.message}: another process (a second watcher?) is using it`, { cause: error })
    }
    throw error
  }
}

/**
 * Runs `body` in one `BEGIN IMMEDIATE … COMMIT` transaction; any exception rolls it back and is
 * rethrown, so either every write of `body` is committed or none is.
 */
export const transaction = <A>(db: DatabaseSync, body: () => A): A => {
  db.exec("BEGIN IMMEDIATE")
  try {
    const result = body()
    db.exec("COMMIT")
    return result
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK")
    throw error
  }
}
