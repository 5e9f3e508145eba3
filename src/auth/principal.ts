/** The authenticated caller, derived from verified JWT claims (spec/api.md §1). */
export interface Principal {
  /** The user id (`sub`). */
  sub: string;
  /** Orgs the user may act in. */
  orgIds: readonly string[];
  isAdmin: boolean;
  /** The raw bearer, forwarded upstream; never logged or stored unsealed. */
  bearer: string;
}

export function canAccessOrg(principal: Principal, orgId: string): boolean {
  return principal.isAdmin || principal.orgIds.includes(orgId);
}
