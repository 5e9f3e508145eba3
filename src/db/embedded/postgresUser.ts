import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { EmbeddedDatabaseError } from "./embeddedDatabaseError.ts";

const run = promisify(execFile);

/** The user the embedded PostgreSQL runs as when Serenity runs as root (it refuses to run as root). */
export interface PostgresUser {
  name: "postgres";
  uid: number;
  gid: number;
}

async function lookUp(): Promise<PostgresUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
    return { name: "postgres", uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/**
 * Undefined when Serenity does not run as root (PostgreSQL then runs as Serenity's own user);
 * else the `postgres` system user, created when it does not exist yet.
 */
export async function postgresUser(): Promise<PostgresUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookUp();
  if (existing) return existing;
  try {
    await run("groupadd", ["--system", "postgres"]).catch(async (error: { code?: number }) => {
      // 9: the group exists already (a user of that name does not).
      if (error.code !== 9) throw error;
    });
    await run("useradd", ["--system", "--gid", "postgres", "--no-create-home", "postgres"]);
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL cannot run as root and the user "postgres" could not be created: create it ("useradd --system postgres"), or set DATABASE_URL`,
      { cause: error },
    );
  }
  const created = await lookUp();
  if (!created) throw new EmbeddedDatabaseError(`The user "postgres" was created but cannot be found`);
  return created;
}
