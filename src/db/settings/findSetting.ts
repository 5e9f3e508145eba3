import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { settings } from "../schema.ts";

/** An operator setting's stored value; `undefined` when the key was never set. */
export async function findSetting(db: DbExecutor, key: string): Promise<unknown> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
  return row?.value;
}
