import { randomBytes } from "node:crypto";

import pg from "pg";
import { inject } from "vitest";

import { type Database, openDatabase } from "../../src/db/database.ts";

export interface TestDatabase extends Database {
  url: string;
  name: string;
  /** Closes the pool and drops the database. */
  destroy(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("dbAdminUrl") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `${inject("dbPrefix")}${randomBytes(5).toString("hex")}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database ${name} template ${inject("dbTemplate")}`);
        return;
      } catch (error) {
        // Two clones at the same instant can see the template "being accessed"; retry briefly.
        if (attempt >= 20 || !String((error as Error).message).includes("being accessed")) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + attempt * 25));
      }
    }
  });
  const url = withDatabase(inject("dbAdminUrl"), name);
  const database = openDatabase(url, { max: 20 });
  return {
    ...database,
    url,
    name,
    destroy: async () => {
      await database.close();
      await withAdmin((client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** An empty database (no migrations applied), for tests of the migrator itself. */
export async function createEmptyDatabase(): Promise<{ url: string; destroy(): Promise<void> }> {
  const name = `${inject("dbPrefix")}${randomBytes(5).toString("hex")}`;
  // From template0, which accepts no connections: template1 may be "being accessed" on a shared server.
  await withAdmin((client) => client.query(`create database ${name} template template0`));
  return {
    url: withDatabase(inject("dbAdminUrl"), name),
    destroy: () =>
      withAdmin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}
