import type { Org } from "../../orgs/orgService.ts";

export function orgView(org: Org) {
  return {
    id: org.id,
    name: org.name,
    parentWorkspaceId: org.parentWorkspaceId,
    createdAt: org.createdAt.toISOString(),
    updatedAt: org.updatedAt.toISOString(),
  };
}
