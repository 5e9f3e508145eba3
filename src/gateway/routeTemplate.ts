import type { GatewayName } from "./types.ts";

/** Path prefixes of the two gateways on their origin (spec/gateway.md §1). */
export const GATEWAY_PREFIXES: Record<GatewayName, string> = {
  um: "/enterprise/users/api",
  pe: "/enterprise/projects/api",
};

export type QueryValue = string | number | boolean | undefined;

/**
 * Fills a templated route (`/v1/workspaces/{ws}/resources`) with URL-encoded parameters and
 * appends the query. The template itself is what metrics and errors name, never the filled path,
 * so ids never reach a label. A missing or empty parameter is a programming error.
 */
export function buildPath(
  gateway: GatewayName,
  route: string,
  params: Record<string, string> = {},
  query: Record<string, QueryValue> = {},
): string {
  const filled = route.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined || value === "") throw new TypeError(`gateway route ${route}: missing {${name}}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) search.append(key, String(value));
  const queryString = search.toString();
  return `${GATEWAY_PREFIXES[gateway]}${filled}${queryString ? `?${queryString}` : ""}`;
}
