import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

import type { PostgresUser } from "./postgresUser.ts";

/**
 * Whether the `postgres` user may pass through a directory, from its owner, group and mode bits
 * (the same order the kernel checks them). Access control lists are not read: a directory they
 * open is taken as closed, which only makes Serenity stage a copy it did not need.
 */
export function postgresMayEnter(stats: Pick<Stats, "uid" | "gid" | "mode">, user: PostgresUser): boolean {
  if (stats.uid === user.uid) return (stats.mode & 0o100) !== 0;
  if (stats.gid === user.gid) return (stats.mode & 0o010) !== 0;
  return (stats.mode & 0o001) !== 0;
}

/** The directories from `/` down to `dir` (included) the `postgres` user cannot pass, top first. */
export async function closedToPostgres(dir: string, user: PostgresUser): Promise<string[]> {
  const closed: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (!postgresMayEnter(await fs.stat(current), user)) closed.unshift(current);
    if (current === path.dirname(current)) return closed;
  }
}
