import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";
import type { CredentialRow } from "./credentialRow.ts";

export async function findCredential(
  db: DbExecutor,
  credentialId: string,
): Promise<CredentialRow | undefined> {
  const [row] = await db.select().from(credentials).where(eq(credentials.id, credentialId)).limit(1);
  return row;
}
