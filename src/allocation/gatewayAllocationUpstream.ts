import { type GatewayClient, isGatewayError } from "../gateway/index.ts";
import type { AllocationUpstream } from "./upstreamPort.ts";

/**
 * The thin adapter from the gateway client to allocation's port: no rules, only the mapping of
 * calls and of the client's error classification (the kinds are the same by design).
 */
export function gatewayAllocationUpstream(gateway: Pick<GatewayClient, "users">): AllocationUpstream {
  return {
    readResources: (bearer, workspaceId) => gateway.users.getResources(bearer, workspaceId),
    transfer: (bearer, subWorkspaceId, targets) =>
      gateway.users.transferResources(bearer, subWorkspaceId, targets),
    listChildren: async (bearer, parentWorkspaceId) =>
      (await gateway.users.getFamily(bearer, parentWorkspaceId))
        .filter((workspace) => workspace.parentId === parentWorkspaceId && workspace.id !== parentWorkspaceId)
        .map((workspace) => ({ id: workspace.id, title: workspace.title })),
    readAiLimitsEnabled: async (bearer, workspaceId, options) =>
      (await gateway.users.getWorkspace(bearer, workspaceId, options)).aiLimitsEnabled,
    failureKind: (error) => (isGatewayError(error) ? error.kind : undefined),
  };
}
