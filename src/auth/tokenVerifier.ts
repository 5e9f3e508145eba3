import { createRemoteJWKSet, type JWTPayload, jwtVerify, SignJWT } from "jose";

import type { Principal } from "./principal.ts";

/** Verifies a bearer JWT and maps its claims to a Principal; any failure is `undefined`. */
export interface TokenVerifier {
  verify(bearer: string): Promise<Principal | undefined>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Tokens must expire and name their user; a token without `exp` would be valid forever. */
const REQUIRED_CLAIMS = ["exp", "sub"];

/** Asymmetric algorithms only for JWKS: an HS* header must never be checked against a public key. */
const JWKS_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

function toPrincipal(payload: JWTPayload, bearer: string): Principal | undefined {
  if (typeof payload.sub !== "string" || payload.sub.length === 0) return undefined;
  // Org ids are our UUIDs; anything else in the claim can never match an org, so it is dropped.
  const orgs = Array.isArray(payload.orgs)
    ? payload.orgs
        .filter((org): org is string => typeof org === "string")
        .map((org) => org.toLowerCase())
        .filter((org) => UUID.test(org))
    : [];
  return { sub: payload.sub, orgIds: orgs, isAdmin: payload.role === "admin", bearer };
}

/**
 * HS256 with the current secret, and during a rotation also with the previous one (ADR 0031):
 * tokens signed before the switch keep verifying until the previous secret is removed; new tokens
 * are only ever signed with the current one (signDevToken).
 */
export function hs256Verifier(secret: string, previous: readonly string[] = []): TokenVerifier {
  const keys = [secret, ...previous].map((value) => new TextEncoder().encode(value));
  return {
    async verify(bearer) {
      for (const key of keys) {
        try {
          const { payload } = await jwtVerify(bearer, key, {
            algorithms: ["HS256"],
            requiredClaims: REQUIRED_CLAIMS,
          });
          return toPrincipal(payload, bearer);
        } catch {
          // the next secret, if any
        }
      }
      return undefined;
    },
  };
}

/** A JWKS answer is kept this long before it is fetched again. */
export const JWKS_CACHE_MAX_AGE_MS = 10 * 60 * 1000;

/** At most one refetch per this long, however many tokens name a kid the set lacks. */
export const JWKS_REFETCH_COOLDOWN_MS = 30 * 1000;

/**
 * Verifies against a remote key set, picking the key by the token's `kid` (ADR 0031): a rotation
 * publishes the new key beside the old one, and a token naming a kid the cached set lacks makes the
 * set be fetched again — at most once per JWKS_REFETCH_COOLDOWN_MS, so tokens with made-up kids
 * cannot make us hammer the issuer.
 */
export function jwksVerifier(options: { jwksUrl: string; issuer: string; audience: string }): TokenVerifier {
  const keys = createRemoteJWKSet(new URL(options.jwksUrl), {
    cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
    cooldownDuration: JWKS_REFETCH_COOLDOWN_MS,
  });
  return {
    async verify(bearer) {
      try {
        const { payload } = await jwtVerify(bearer, keys, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: JWKS_ALGORITHMS,
          requiredClaims: REQUIRED_CLAIMS,
        });
        return toPrincipal(payload, bearer);
      } catch {
        return undefined;
      }
    },
  };
}

export interface DevTokenClaims {
  sub: string;
  orgs?: string[];
  admin?: boolean;
  ttlSeconds?: number;
}

/** Signs a local development token (HS256), as `serenity token` prints it. */
export async function signDevToken(secret: string, claims: DevTokenClaims): Promise<string> {
  const jwt = new SignJWT({ orgs: claims.orgs ?? [], ...(claims.admin ? { role: "admin" } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSeconds ?? 12 * 3600}s`);
  return jwt.sign(new TextEncoder().encode(secret));
}
