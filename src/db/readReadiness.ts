import type pg from "pg";

/** What one readiness query learns: the database answered, and how many migrations it has applied. */
export interface ReadinessReading {
  database: boolean;
  appliedMigrations: number;
}

const UNDEFINED_TABLE = "42P01";

/**
 * One statement on the readiness connection: the count of applied migrations. An answer at all
 * means the database is up; a missing migrations table means up but never migrated.
 */
export async function readReadiness(pool: pg.Pool): Promise<ReadinessReading> {
  try {
    const result = await pool.query<{ n: number }>(
      "select count(*)::int as n from drizzle.__drizzle_migrations",
    );
    return { database: true, appliedMigrations: result.rows[0]?.n ?? 0 };
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE)
      return { database: true, appliedMigrations: 0 };
    return { database: false, appliedMigrations: 0 };
  }
}
