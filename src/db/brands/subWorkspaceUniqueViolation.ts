import { isUniqueViolation } from "../isUniqueViolation.ts";

/** The UNIQUE constraint that makes a workspace the canonical pointer of at most one brand. */
export const SUB_WORKSPACE_UNIQUE_CONSTRAINT = "brands_sub_workspace_id_unique";

/** True when `error` says another brand already points at that workspace. */
export function isSubWorkspaceUniqueViolation(error: unknown): boolean {
  return isUniqueViolation(error, SUB_WORKSPACE_UNIQUE_CONSTRAINT);
}
