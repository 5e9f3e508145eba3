import type { GatewayCallOptions, GatewayTransport } from "./transport.ts";
import type {
  AiAllocation,
  AiResources,
  CreateSubWorkspaceRequest,
  Workspace,
  WorkspaceDetails,
} from "./types.ts";
import {
  familyWire,
  resourcesWire,
  statusWire,
  workspaceDetailsWire,
  workspaceWire,
} from "./wire/userManagerWire.ts";

/**
 * The User Manager adapter (`/enterprise/users/api`): sub-workspaces and their AI resources.
 * Every call takes the caller's bearer first. No business rules here — callers decide what a 0,
 * a 403 or a not-ready answer means. Methods with a trailing `options` accept a cancellation
 * signal (see `GatewayRequest.signal`).
 */
export interface UserManagerClient {
  /** `POST /v2/workspaces/{parent}/child`; the new workspace usually reads `not ready`. */
  createSubWorkspace(
    bearer: string,
    parentId: string,
    request: CreateSubWorkspaceRequest,
    options?: GatewayCallOptions,
  ): Promise<Workspace>;
  /** `GET /v1/workspaces/{ws}/status` → the normalised status. */
  getStatus(bearer: string, workspaceId: string, options?: GatewayCallOptions): Promise<string>;
  /** `GET /v1/workspaces/{ws}/family` → the workspace itself and all its descendants. */
  getFamily(bearer: string, workspaceId: string, options?: GatewayCallOptions): Promise<Workspace[]>;
  /** `GET /v1/workspaces/{ws}/resources` → AI usage and allocation per dimension. */
  getResources(bearer: string, workspaceId: string): Promise<AiResources>;
  /**
   * `POST /v2/workspaces/{ws}/resources/transfer`: sets absolute totals; omitted dimensions stay.
   * Resolves with nothing: the answer's body is not used (read `getResources` for the new state).
   */
  transferResources(bearer: string, subWorkspaceId: string, totals: AiAllocation): Promise<void>;
  /** `GET /v1/workspaces/{ws}`, with the `ai` product's metering switch (`aiLimitsEnabled`). */
  getWorkspace(bearer: string, workspaceId: string, options?: GatewayCallOptions): Promise<WorkspaceDetails>;
  /** `DELETE /v1/workspaces/{ws}` (cascades). Tests and simulator clean-up only. */
  deleteWorkspace(bearer: string, workspaceId: string): Promise<void>;
  /** `PUT /v1/workspaces/{id}` `{title}`: renames a workspace (a brand rename reaches its sub-workspace). */
  renameWorkspace(bearer: string, workspaceId: string, title: string): Promise<WorkspaceDetails>;
}

/** `{projects?, prompts?}` → the wire's `{ai: {...}}`, leaving omitted dimensions out entirely. */
function aiResourcesBody(allocation: AiAllocation | undefined): { ai?: AiAllocation } {
  if (!allocation) return {};
  const ai: AiAllocation = {};
  if (allocation.projects !== undefined) ai.projects = allocation.projects;
  if (allocation.prompts !== undefined) ai.prompts = allocation.prompts;
  return Object.keys(ai).length > 0 ? { ai } : {};
}

export function createUserManagerClient(transport: GatewayTransport): UserManagerClient {
  return {
    createSubWorkspace: (bearer, parentId, request, options) =>
      transport.send(bearer, {
        gateway: "um",
        method: "POST",
        route: "/v2/workspaces/{parent}/child",
        params: { parent: parentId },
        // `resources` is required upstream even when empty.
        body: { title: request.title, resources: aiResourcesBody(request.resources) },
        response: workspaceWire,
        signal: options?.signal,
        scope: options?.scope,
      }),
    getStatus: (bearer, workspaceId, options) =>
      transport.send(bearer, {
        gateway: "um",
        method: "GET",
        route: "/v1/workspaces/{ws}/status",
        params: { ws: workspaceId },
        response: statusWire,
        signal: options?.signal,
        scope: options?.scope,
      }),
    getFamily: (bearer, workspaceId, options) =>
      transport.send(bearer, {
        gateway: "um",
        method: "GET",
        route: "/v1/workspaces/{ws}/family",
        params: { ws: workspaceId },
        response: familyWire,
        signal: options?.signal,
        scope: options?.scope,
      }),
    getResources: (bearer, workspaceId) =>
      transport.send(bearer, {
        gateway: "um",
        method: "GET",
        route: "/v1/workspaces/{ws}/resources",
        params: { ws: workspaceId },
        response: resourcesWire,
      }),
    transferResources: (bearer, subWorkspaceId, totals) =>
      transport.send(bearer, {
        gateway: "um",
        method: "POST",
        route: "/v2/workspaces/{ws}/resources/transfer",
        params: { ws: subWorkspaceId },
        body: { resources: { ai: aiResourcesBody(totals).ai ?? {} } },
        // Absolute totals: repeating the transfer changes nothing (spec/gateway.md §3).
        idempotent: true,
      }),
    getWorkspace: (bearer, workspaceId, options) =>
      transport.send(bearer, {
        gateway: "um",
        method: "GET",
        route: "/v1/workspaces/{ws}",
        params: { ws: workspaceId },
        response: workspaceDetailsWire,
        signal: options?.signal,
        scope: options?.scope,
      }),
    renameWorkspace: (bearer, workspaceId, title) =>
      transport.send(bearer, {
        gateway: "um",
        method: "PUT",
        route: "/v1/workspaces/{ws}",
        params: { ws: workspaceId },
        body: { title },
        response: workspaceDetailsWire,
        // A full replace of the title: the same body twice leaves the same workspace.
        idempotent: true,
      }),
    deleteWorkspace: (bearer, workspaceId) =>
      transport.send(bearer, {
        gateway: "um",
        method: "DELETE",
        route: "/v1/workspaces/{ws}",
        params: { ws: workspaceId },
      }),
  };
}
