/** The UNIQUE constraint that makes a workspace the canonical pointer of at most one brand. */
export const SUB_WORKSPACE_UNIQUE_CONSTRAINT = "brands_sub_workspace_id_unique";

/**
 * True when `error` (or a cause in its chain: drizzle wraps the pg error) is a unique violation
 * (SQLSTATE 23505) of the sub-workspace pointer: another brand already points at that workspace.
 */
export function isSubWorkspaceUniqueViolation(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === "23505" && candidate.constraint === SUB_WORKSPACE_UNIQUE_CONSTRAINT) return true;
    current = candidate.cause;
  }
  return false;
}
