/**
 * SERENITY_CORS_ORIGINS: the origins a browser UI may call the API from, comma-separated
 * (`https://app.example.com,https://admin.example.com`); unset = none. Each must be an http(s)
 * origin (scheme, host, optional port; no path); `*` (any origin) is for development and is
 * refused in production mode, where a UI's origin is always known.
 */
export function parseCorsOrigins(
  value: string | undefined,
  production: boolean,
): { origins: string[] } | { problem: string } {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const origins: string[] = [];
  for (const entry of entries) {
    if (entry === "*") {
      if (production) return { problem: "must list the UI origins: `*` is refused in production" };
      origins.push("*");
      continue;
    }
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return { problem: "must be a comma-separated list of http(s) origins" };
    }
    const onlyOrigin =
      url.pathname === "/" && !/^[a-z]+:\/\/[^/]*\/./i.test(entry) && !url.search && !url.hash;
    if (!/^https?:$/.test(url.protocol) || !onlyOrigin || url.username || url.password)
      return { problem: "must be a comma-separated list of http(s) origins (scheme, host, port; no path)" };
    origins.push(url.origin);
  }
  return { origins: [...new Set(origins)] };
}
