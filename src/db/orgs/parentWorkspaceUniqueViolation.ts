import { isUniqueViolation } from "../isUniqueViolation.ts";

/** The UNIQUE constraint that makes a parent workspace the pool of at most one org. */
export const PARENT_WORKSPACE_UNIQUE_CONSTRAINT = "orgs_parent_workspace_id_unique";

/** True when `error` says another org already has that parent workspace as its pool. */
export function isParentWorkspaceUniqueViolation(error: unknown): boolean {
  return isUniqueViolation(error, PARENT_WORKSPACE_UNIQUE_CONSTRAINT);
}
