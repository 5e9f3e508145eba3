import type pg from "pg";

/** Readiness: true when the database answers a trivial query. */
export async function pingDatabase(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query("select 1");
    return true;
  } catch {
    return false;
  }
}
