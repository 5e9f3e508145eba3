import type { DbExecutor } from "../database.ts";
import { settings } from "../schema.ts";

/** Sets an operator setting (insert or overwrite), stamped with the application's clock. */
export async function upsertSetting(
  db: DbExecutor,
  setting: { key: string; value: unknown; now: Date },
): Promise<void> {
  await db
    .insert(settings)
    .values({ key: setting.key, value: setting.value, updatedAt: setting.now })
    .onConflictDoUpdate({ target: settings.key, set: { value: setting.value, updatedAt: setting.now } });
}
