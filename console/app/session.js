// @ts-check
// The bearer token lives in this tab's sessionStorage and nowhere else: never in a URL, a cookie,
// localStorage or a log. Closing the tab forgets it.

const TOKEN_KEY = "serenity.console.token";

/** @returns {string | null} */
export function readToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

/** @param {string} token */
export function storeToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken() {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage unavailable: nothing was stored either.
  }
}

/**
 * Who the token names, read from its payload for display only (the API verifies it; the console
 * never trusts these claims for anything else).
 * @param {string | null} token
 * @returns {{ sub: string, admin: boolean } | null}
 */
export function describeToken(token) {
  const payload = token?.split(".")[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const claims = /** @type {{ sub?: unknown, role?: unknown }} */ (JSON.parse(json));
    return typeof claims.sub === "string" ? { sub: claims.sub, admin: claims.role === "admin" } : null;
  } catch {
    return null;
  }
}
