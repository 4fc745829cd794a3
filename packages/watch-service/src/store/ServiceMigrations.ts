/**
 * The service's tables, created by `effect/sql` migrations recorded in
 * `chainquery_service_migrations` (the engine's state has its own, see `PgStateStore`):
 *
 * - `streams`: each subscription: its webhook URL, the event kinds and chains it wants (`NULL`:
 *   all), its confirmations, its signing secret (and, while a rotation is in grace, the one
 *   before), its content filter, its status, and its counters (the next event position, the next
 *   delivery sequence, the events its filter kept out);
 * - `stream_wallets`: the wallets of each stream, by scope (chain id or `aptos:<network>`) and address;
 * - `stream_events`: the outbox: each stream's events in order (`position`), as the JSON sent;
 * - `deliveries`: the webhook requests, each a range of a stream's positions, in `sequence` order,
 *   with how many times each was sent again as it was (`resends`);
 * - `delivery_attempts`: each attempt's outcome, for the success rate and the stats;
 * - `wallet_set_version`: a number moved on by every change of what the scans watch (each wallet
 *   stamped with the one its adding moved on to), and the last that may have taken wallets from a scan;
 * - `stream_history`: the history of wallets added with one: from which block, up to which, how far
 *   it was given to the stream (see `HistoryStore`); `stream_history_staged`: an Aptos history's
 *   events, listed newest first, waiting to be sent oldest first;
 * - `stream_coverage`: per stream and scope, the first block covered, the last one a batch
 *   accounts for, and the last one its receiver took (see `Coverage`);
 * - `secrets_key`: when the streams' secrets are encrypted, a value encrypted with their key, which
 *   proves a runner's key is theirs (see `StreamSecrets`);
 * - `console_sessions`: the console's sign-ins, by a digest of their id (see `ConsoleSessions`);
 * - `chain_heads`: each EVM chain's head as the scans found it, and since when (see `ChainHeads`).
 *
 * The engine's tables (`PgStateStore.migrate`) must exist first: the coverage of the streams of an
 * older service starts where their scans stand.
 *
 * @since 0.2.0
 */
import { PgStateStore, type StateStore } from "@chainquery/watch"
import { Effect } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { coveringBatch } from "./Activity.js"
import { addressBytes } from "./sqlAddress.js"

const loader = Migrator.fromRecord({
  "1_streams": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE streams (
      id text COLLATE "C" PRIMARY KEY,
      url text NOT NULL,
      description text NOT NULL DEFAULT '',
      event_kinds text[],
      scopes text[],
      confirmations integer NOT NULL,
      secret text NOT NULL,
      status text NOT NULL CHECK (status IN ('active', 'paused', 'error')),
      status_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      next_position bigint NOT NULL DEFAULT 1,
      next_sequence bigint NOT NULL DEFAULT 1)`
    yield* sql`CREATE TABLE stream_wallets (
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      scope text COLLATE "C" NOT NULL,
      address text COLLATE "C" NOT NULL,
      added_at timestamptz NOT NULL,
      PRIMARY KEY (stream_id, scope, address))`
    yield* sql`CREATE INDEX stream_wallets_by_wallet ON stream_wallets (scope, address)`
    yield* sql`CREATE TABLE stream_events (
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      position bigint NOT NULL,
      event_id text NOT NULL,
      body text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (stream_id, position))`
    yield* sql`CREATE INDEX stream_events_by_id ON stream_events (stream_id, event_id)`
    yield* sql`CREATE INDEX stream_events_by_time ON stream_events (stream_id, created_at)`
    yield* sql`CREATE TABLE deliveries (
      id text COLLATE "C" PRIMARY KEY,
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      sequence bigint NOT NULL,
      first_position bigint NOT NULL,
      last_position bigint NOT NULL,
      event_count integer NOT NULL,
      replay boolean NOT NULL DEFAULT false,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      last_attempt_at timestamptz,
      last_status integer,
      last_error text,
      created_at timestamptz NOT NULL,
      delivered_at timestamptz,
      UNIQUE (stream_id, sequence))`
    yield* sql`CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending'`
    yield* sql`CREATE INDEX deliveries_by_status ON deliveries (stream_id, status, sequence)`
    yield* sql`CREATE TABLE delivery_attempts (
      id bigserial PRIMARY KEY,
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      delivery_id text COLLATE "C" NOT NULL,
      at timestamptz NOT NULL,
      ok boolean NOT NULL,
      status integer,
      error text)`
    yield* sql`CREATE INDEX delivery_attempts_recent ON delivery_attempts (stream_id, id DESC)`
  }),
  "2_wallet_set_version": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE wallet_set_version (id integer PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)`
    yield* sql`INSERT INTO wallet_set_version (id, version) VALUES (1, 0)`
  }),
  "3_retractions_and_resumes": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A retraction finds the streams that received the event it takes back by its id.
    yield* sql`CREATE INDEX stream_events_by_event ON stream_events (event_id, stream_id)`
    // The success rate counts the attempts since a stream was last resumed.
    yield* sql`ALTER TABLE streams ADD COLUMN resumed_at timestamptz`
  }),
  "4_coverage": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // When the stream's last batch was made (heartbeats), and the last sequence its receiver took.
    yield* sql`ALTER TABLE streams ADD COLUMN last_batch_at timestamptz, ADD COLUMN delivered_sequence bigint`
    yield* sql`UPDATE streams SET last_batch_at = now()`
    // What each batch accounts for, besides its events.
    yield* sql`ALTER TABLE deliveries ADD COLUMN coverage jsonb, ADD COLUMN replaces jsonb, ADD COLUMN wallets jsonb,
      ADD COLUMN heartbeat boolean NOT NULL DEFAULT false`
    // From which block each wallet is covered, and whether a batch said so yet.
    yield* sql`ALTER TABLE stream_wallets ADD COLUMN covered_from bigint, ADD COLUMN announced boolean NOT NULL DEFAULT true`
    yield* sql`CREATE INDEX stream_wallets_unannounced ON stream_wallets (stream_id, scope, address) WHERE NOT announced`
    yield* sql`CREATE TABLE stream_coverage (
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      scope text COLLATE "C" NOT NULL,
      covered_from bigint NOT NULL,
      batched_to bigint NOT NULL,
      delivered_to bigint,
      PRIMARY KEY (stream_id, scope))`
    // The streams of an older service are covered from where their scans stand now.
    yield* sql`INSERT INTO stream_coverage (stream_id, scope, covered_from, batched_to)
      SELECT w.stream_id, w.scope, f.lowest + 1, f.lowest FROM (SELECT DISTINCT stream_id, scope FROM stream_wallets) w
        JOIN streams s ON s.id = w.stream_id
        JOIN (SELECT namespace, min(position) AS lowest FROM watch_checkpoints GROUP BY namespace) f
          ON f.namespace = 'scan:' || w.scope || ':' || s.confirmations`
  }),
  "5_secrets_key": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A row once the streams' secrets are encrypted (`StreamSecrets`): a runner without the key, or with another, stops.
    yield* sql`CREATE TABLE secrets_key (id integer PRIMARY KEY CHECK (id = 1), check_value text NOT NULL)`
  }),
  "6_resends": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // How many times a batch was sent again as it was (`POST …/replay` by sequence or blocks).
    yield* sql`ALTER TABLE deliveries ADD COLUMN resends integer NOT NULL DEFAULT 0`
  }),
  "7_history": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A batch is live (blocks as they come) or history (the past of wallets added with it), and
    // then says which blocks of which wallet's history it accounts for.
    yield* sql`ALTER TABLE deliveries ADD COLUMN phase text NOT NULL DEFAULT 'live' CHECK (phase IN ('live', 'history')),
      ADD COLUMN history jsonb`
    // Where a wallet's history starts, for the batch that announces it.
    yield* sql`ALTER TABLE stream_wallets ADD COLUMN history_from bigint`
    // Each wallet's history still owed or given: from which block, up to which (the block before
    // its live coverage), and up to which it was committed to the stream's outbox.
    yield* sql`CREATE TABLE stream_history (
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      scope text COLLATE "C" NOT NULL,
      address text COLLATE "C" NOT NULL,
      from_block bigint NOT NULL,
      up_to bigint NOT NULL,
      through bigint NOT NULL,
      events bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      done_at timestamptz,
      PRIMARY KEY (stream_id, scope, address))`
    yield* sql`CREATE INDEX stream_history_open ON stream_history (scope, created_at) WHERE done_at IS NULL`
  }),
  "8_history_staging": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // An Aptos history is listed newest first: its events wait here (and `staged` says the listing
    // reached `from`) until they are sent oldest first.
    yield* sql`ALTER TABLE stream_history ADD COLUMN staged boolean NOT NULL DEFAULT false`
    yield* sql`CREATE TABLE stream_history_staged (
      stream_id text COLLATE "C" NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
      scope text COLLATE "C" NOT NULL,
      address text COLLATE "C" NOT NULL,
      version bigint NOT NULL,
      ord integer NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (stream_id, scope, address, version, ord))`
  }),
  "9_stream_controls": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A rotated secret: the one before goes on signing, next to the new one, until the grace ends.
    yield* sql`ALTER TABLE streams ADD COLUMN previous_secret text, ADD COLUMN previous_secret_until timestamptz, ADD COLUMN rotated_at timestamptz`
    // A content filter (`StreamFilters`, as JSON), whether the stream's batches stated it since it
    // last changed, and how many events it kept out; the batch that states it carries it.
    yield* sql`ALTER TABLE streams ADD COLUMN filters jsonb, ADD COLUMN filters_announced boolean NOT NULL DEFAULT true,
      ADD COLUMN filtered_events bigint NOT NULL DEFAULT 0`
    yield* sql`ALTER TABLE deliveries ADD COLUMN filters jsonb`
  }),
  "10_console_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The console's sessions, by the SHA-256 of their id (the id itself is only in the browser's cookie).
    yield* sql`CREATE TABLE console_sessions (
      digest bytea PRIMARY KEY,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL)`
  }),
  "11_console_views": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // How long each attempt's request took (the console shows it); attempts of before have none.
    yield* sql`ALTER TABLE delivery_attempts ADD COLUMN duration_ms integer`
    // A stream's last hour (`Activity`): its batches by when they were delivered.
    yield* sql`CREATE INDEX deliveries_by_delivered_at ON deliveries (stream_id, delivered_at) WHERE delivered_at IS NOT NULL`
  }),
  "12_chain_heads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Each chain's head as the scans found it (`ChainHeads`), and since when.
    yield* sql`CREATE TABLE chain_heads (scope text COLLATE "C" PRIMARY KEY, head bigint NOT NULL, seen_at timestamptz NOT NULL)`
  }),
  "13_console_reads": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // What the console reads of a stream, at a cost that does not grow with the stream's age: a
    // delivery's attempts (`DeliveryStore.find`), the last hour's failed attempts and the last
    // batch with coverage taken before it (`Activity`).
    yield* sql`CREATE INDEX delivery_attempts_of_delivery ON delivery_attempts (delivery_id, id)`
    yield* sql`CREATE INDEX delivery_attempts_failed ON delivery_attempts (stream_id, at) WHERE NOT ok`
    yield* sql`CREATE INDEX deliveries_covering_by_created_at ON deliveries (stream_id, created_at)
      WHERE delivered_at IS NOT NULL AND ${sql.literal(coveringBatch)}`
  }),
  "14_stream_wallets_lean": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A stream's wallets in two indexes where there were three, each wallet's address in one: the
    // key leads with the wallet (what a scan and an event look a wallet up by), and a stream's
    // wallets are found by its id alone, in an index of one repeated key that PostgreSQL keeps
    // deduplicated (a few bytes a wallet). So are the wallets no batch announced yet: a batch
    // takes any 1,000 of its stream's (`Coverage.announce`). 100,000 wallets: 23 MB of indexes
    // fewer (the address cost ~140 bytes a wallet in each index that had it).
    yield* sql`ALTER TABLE stream_wallets DROP CONSTRAINT stream_wallets_pkey`
    yield* sql`ALTER TABLE stream_wallets ADD CONSTRAINT stream_wallets_pkey PRIMARY KEY (scope, address, stream_id)`
    yield* sql`DROP INDEX stream_wallets_by_wallet`
    yield* sql`CREATE INDEX stream_wallets_of_stream ON stream_wallets (stream_id)`
    yield* sql`DROP INDEX stream_wallets_unannounced`
    yield* sql`CREATE INDEX stream_wallets_unannounced ON stream_wallets (stream_id) WHERE NOT announced`
  }),
  "15_wallet_addresses_as_bytes": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A stream's wallets with their addresses as bytes (`sqlAddress.ts`): 21 bytes where the text
    // took 43, in the table and in its key.
    yield* sql`ALTER TABLE stream_wallets ALTER COLUMN address TYPE bytea USING ${sql.literal(addressBytes("address"))}`
  }),
  "16_wallets_added_version": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Each wallet stamped with the wallets' version its adding moved on to, and the version of the
    // last change that may have taken wallets from a scan (`reset`): a scan reads the wallets added
    // since its last look alone (`StreamStore.watchedSince`), through a block range index (versions
    // grow with the table: a few pages for any number of wallets).
    yield* sql`ALTER TABLE stream_wallets ADD COLUMN added_version bigint NOT NULL DEFAULT 0`
    yield* sql`CREATE INDEX stream_wallets_by_added_version ON stream_wallets USING brin (added_version)`
    yield* sql`ALTER TABLE wallet_set_version ADD COLUMN reset bigint NOT NULL DEFAULT 0`
    yield* sql`UPDATE wallet_set_version SET reset = version`
  }),
  "17_stream_wallets_without_foreign_key": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A stream's wallets are added under its row (`StreamStore.addWallets`) and deleted with it in
    // one transaction (`StreamStore.remove`): the foreign key's check, a look per wallet added, cost
    // 45 ms of each 10,000.
    yield* sql`ALTER TABLE stream_wallets DROP CONSTRAINT stream_wallets_stream_id_fkey`
  })
})

const migrateService = Migrator.make({})({ loader, table: "chainquery_service_migrations" })

/**
 * Runs the engine's migrations, then the service's that have not run yet, on the context's
 * `SqlClient`: all in one transaction, under a lock, so that runners of a cluster started
 * together migrate one after the other (the later ones find nothing to do).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServiceMigrations } from "@chainquery/watch-service"
 *
 * const ready = Effect.asVoid(ServiceMigrations.run)
 * ```
 * @since 0.2.0
 */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError | StateStore.StateStoreError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    sql`SELECT pg_advisory_xact_lock(hashtext('chainquery service migrations'))`.pipe(
      Effect.andThen(PgStateStore.migrate),
      Effect.andThen(migrateService)
    )
  )
})
