import { readFileSync } from "node:fs";
import path from "node:path";

import type { ReadinessReport } from "../api/appDeps.ts";
import { MIGRATIONS_FOLDER, migrationsApplied } from "../db/migrate.ts";
import { pingDatabase } from "../db/pingDatabase.ts";
import type { Runtime } from "./runtime.ts";

function committedMigrationCount(): number {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

/**
 * "This process can serve", for the API and the worker alike: the database answers and every
 * committed migration is applied. Never the upstream (its health is `serenity_gateway_reachable`).
 */
export function databaseReadiness(runtime: Runtime): () => Promise<ReadinessReport> {
  const expectedMigrations = committedMigrationCount();
  return async () => {
    const checks: Record<string, boolean> = {};
    checks.database = await pingDatabase(runtime.database.pool);
    checks.migrations =
      checks.database && (await migrationsApplied(runtime.database.pool, expectedMigrations));
    return { ready: Object.values(checks).every(Boolean), checks };
  };
}
