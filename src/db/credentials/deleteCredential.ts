import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

/** Removes a credential row outright (one that was sealed but never attached to a job). */
export async function deleteCredential(db: DbExecutor, credentialId: string): Promise<boolean> {
  const rows = await db
    .delete(credentials)
    .where(eq(credentials.id, credentialId))
    .returning({ id: credentials.id });
  return rows.length > 0;
}
