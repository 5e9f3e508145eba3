/**
 * When a stored credential stops being usable: the token's own `exp` when it is a JWT (decoded
 * without verification — we only need to know when the upstream will stop accepting it), else
 * now + SERENITY_CREDENTIAL_TTL. Pure.
 */

export const DEFAULT_CREDENTIAL_TTL_MS = 60 * 60 * 1000;

export function jwtExpiry(token: string): Date | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { exp?: unknown };
    if (typeof payload.exp !== "number" || !Number.isFinite(payload.exp)) return undefined;
    return new Date(payload.exp * 1000);
  } catch {
    return undefined;
  }
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * SERENITY_CREDENTIAL_TTL, read per use: milliseconds as a bare integer, or with a unit
 * (`90s`, `30m`, `1h`). Anything unreadable falls back to the 1 h default.
 */
export function credentialTtlMs(env: Record<string, string | undefined> = process.env): number {
  const raw = env.SERENITY_CREDENTIAL_TTL?.trim().toLowerCase();
  if (!raw) return DEFAULT_CREDENTIAL_TTL_MS;
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw);
  if (!match) return DEFAULT_CREDENTIAL_TTL_MS;
  const value = Number(match[1]) * UNIT_MS[match[2] ?? "ms"]!;
  return value > 0 ? value : DEFAULT_CREDENTIAL_TTL_MS;
}

export function credentialExpiry(token: string, now: Date, ttlMs: number): Date {
  return jwtExpiry(token) ?? new Date(now.getTime() + ttlMs);
}
