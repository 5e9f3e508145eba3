import type { DbExecutor } from "../database.ts";
import { findLastPublishes, type LastPublish, type PublishWindow } from "./findLastPublishes.ts";

/** The last publish written into `subWorkspaceId`; undefined when none was recorded. */
export async function findLastPublish(
  db: DbExecutor,
  subWorkspaceId: string,
  window: PublishWindow,
): Promise<LastPublish | undefined> {
  return (await findLastPublishes(db, [subWorkspaceId], window)).get(subWorkspaceId);
}
