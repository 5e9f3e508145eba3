/**
 * Semrush counts its request limits per account and per endpoint group (spec/gateway.md §7). The
 * groups, in the words of its API documentation: workspaces (every User Manager call), projects
 * (Project Engine calls other than prompt tracking) and prompt tracking (Project Engine `…/aio/…`
 * calls: prompts and tags). The simulator enforces the limits with this rule, and Serenity's own
 * budget keys its calls with the same one, so both always agree on which group a call spends.
 */
export const ENDPOINT_GROUPS = ["workspaces", "projects", "promptTracking"] as const;

export type EndpointGroup = (typeof ENDPOINT_GROUPS)[number];

/** Semrush's published numbers, per (account, endpoint group). */
export const SEMRUSH_PUBLISHED_LIMITS = { perSecond: 10, concurrent: 10 } as const;

/**
 * The group of a call. `path` is the request path (prefix included or not, query or not) or a route
 * template (`/v2/…/{pid}/aio/prompts`); only its `/aio/` segment matters on the Project Engine.
 */
export function endpointGroupOf(gateway: "um" | "pe", path: string): EndpointGroup {
  if (gateway === "um") return "workspaces";
  const withoutQuery = path.split("?", 1)[0] ?? "";
  return /\/aio(\/|$)/.test(withoutQuery) ? "promptTracking" : "projects";
}
