import type { EndpointGroup } from "../domain/upstreamBudget.ts";
import type { GatewayName } from "./types.ts";

/**
 * The Semrush endpoint group of a call (spec/gateway.md §7): every User Manager call counts as
 * `workspaces`; Project Engine prompt tracking (`…/aio/…`: prompts and tags) as `prompts`; every
 * other Project Engine call as `projects`.
 */
export function endpointGroupOf(gateway: GatewayName, route: string): EndpointGroup {
  if (gateway === "um") return "workspaces";
  return route.includes("/aio/") ? "prompts" : "projects";
}
