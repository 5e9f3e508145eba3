import type { credentials } from "../schema.ts";

export type CredentialRow = typeof credentials.$inferSelect;
