import type { DbExecutor } from "../database.ts";
import { findLastPublishes, type LastPublish } from "./findLastPublishes.ts";

/** The last publish written into `subWorkspaceId`; undefined when none was recorded. */
export async function findLastPublish(
  db: DbExecutor,
  subWorkspaceId: string,
): Promise<LastPublish | undefined> {
  return (await findLastPublishes(db, [subWorkspaceId])).get(subWorkspaceId);
}
