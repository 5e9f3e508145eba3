import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";
import type { CredentialRow } from "./credentialRow.ts";

export async function insertCredential(
  db: DbExecutor,
  values: { id: string; ownerSub: string; audience: string; sealed: Buffer; expiresAt: Date; now: Date },
): Promise<CredentialRow> {
  const [row] = await db
    .insert(credentials)
    .values({
      id: values.id,
      ownerSub: values.ownerSub,
      audience: values.audience,
      sealed: values.sealed,
      expiresAt: values.expiresAt,
      createdAt: values.now,
    })
    .returning();
  return row!;
}
