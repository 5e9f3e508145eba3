import pg from "pg";

/**
 * Whether the connections of `url` go through a pooler in transaction (or statement) mode, found by
 * behaviour (docs/decisions/0038): two sessions opened side by side, each asked for its server
 * process id while the other stays open. PostgreSQL gives every session its own process, and so
 * does PgBouncer in session mode; a transaction-mode pooler hands the idle server connection of
 * one client to the next statement of another (PgBouncer reuses the most recent one first), so
 * both answer the same id. Serenity needs session semantics — a LISTEN session, session advisory
 * locks (migrations, the allocation lock), named prepared statements — none of which survive it.
 */
export async function sharesServerSessions(url: string): Promise<boolean> {
  const first = new pg.Client({ connectionString: url, application_name: "serenity pooling check" });
  const second = new pg.Client({ connectionString: url, application_name: "serenity pooling check" });
  await first.connect();
  try {
    await second.connect();
    try {
      const one = await first.query<{ pid: number }>("select pg_backend_pid() as pid");
      const other = await second.query<{ pid: number }>("select pg_backend_pid() as pid");
      return one.rows[0]?.pid === other.rows[0]?.pid;
    } finally {
      await second.end();
    }
  } finally {
    await first.end();
  }
}

/** The one line a process refusing a transaction-mode pooler prints. */
export const TRANSACTION_POOLING_REFUSAL =
  "DATABASE_URL goes through a pooler in transaction mode (two sessions shared one PostgreSQL process): " +
  "Serenity needs session semantics (LISTEN, session advisory locks, prepared statements); " +
  "set pool_mode = session for its database in PgBouncer, or connect to PostgreSQL directly (docs/decisions/0038)";
