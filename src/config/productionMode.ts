/**
 * Production mode (`NODE_ENV=production` or `SERENITY_ENV=production`): the laptop defaults —
 * an embedded PostgreSQL inside the pod, the built-in simulator instead of Semrush, a listen
 * address of 127.0.0.1, an auth secret and a credential key generated per data directory (so every
 * pod has its own) — are refused instead of applied. Pure: the caller turns the list into one line.
 */

export type EnvSource = Readonly<Record<string, string | undefined>>;

/** True when the environment asks for production mode. */
export function isProductionMode(env: EnvSource): boolean {
  return env.NODE_ENV?.trim() === "production" || env.SERENITY_ENV?.trim() === "production";
}

function isHttps(value: string | undefined): boolean {
  if (!value) return false;
  try {
    return new URL(value).protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * Every setting production mode needs and the environment lacks, as "VARIABLE (what)" phrases, in
 * a fixed order; empty when everything is set. `env` holds only non-empty values.
 */
export function productionRefusals(env: EnvSource): string[] {
  const missing: string[] = [];
  if (!env.DATABASE_URL) missing.push("DATABASE_URL (no embedded PostgreSQL in production)");
  if (!isHttps(env.SEMRUSH_PROJECTS_BASE_URL))
    missing.push("SEMRUSH_PROJECTS_BASE_URL (an https origin, not the built-in simulator)");
  if (env.SEMRUSH_USERS_BASE_URL && !isHttps(env.SEMRUSH_USERS_BASE_URL))
    missing.push("SEMRUSH_USERS_BASE_URL (an https origin)");
  if (env.SERENITY_AUTH_JWKS_URL) {
    if (!isHttps(env.SERENITY_AUTH_JWKS_URL)) missing.push("SERENITY_AUTH_JWKS_URL (an https URL)");
  } else if (!env.SERENITY_AUTH_SECRET) {
    missing.push(
      "SERENITY_AUTH_JWKS_URL with SERENITY_AUTH_ISSUER and SERENITY_AUTH_AUDIENCE, or SERENITY_AUTH_SECRET (no secret generated per data directory)",
    );
  }
  if (!env.SERENITY_CREDENTIAL_KEY)
    missing.push("SERENITY_CREDENTIAL_KEY (shared by every process, not one generated per data directory)");
  if (!env.HOST) missing.push("HOST (an explicit listen address, e.g. 0.0.0.0)");
  return missing;
}

/** The one line a refused start prints. */
export function productionRefusalLine(env: EnvSource, missing: readonly string[]): string {
  const by = env.NODE_ENV?.trim() === "production" ? "NODE_ENV=production" : "SERENITY_ENV=production";
  return `Production mode (${by}) refuses to start on development defaults. Set: ${missing.join("; ")}`;
}
