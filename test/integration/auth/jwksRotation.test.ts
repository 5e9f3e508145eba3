import http from "node:http";
import type { AddressInfo } from "node:net";

import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import {
  JWKS_REFETCH_COOLDOWN_MS,
  jwksVerifier,
  type TokenVerifier,
} from "../../../src/auth/tokenVerifier.ts";

/** A real issuer's key endpoint over HTTP: what it publishes can change, and it counts its fetches. */
let published: JWK[] = [];
let fetches = 0;
let server: http.Server;
let jwksUrl: string;

const ISSUER = "https://idp.example/";
const AUDIENCE = "serenity";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

function tokenOf(key: SigningKey, sub: string, kid = key.kid): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(key.privateKey);
}

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    fetches += 1;
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => vi.useRealTimers());

function verifier(): TokenVerifier {
  return jwksVerifier({ jwksUrl, issuer: ISSUER, audience: AUDIENCE });
}

describe("JWKS rotation by kid", () => {
  it("picks the key by kid, and fetches the set again for a kid it has not seen", async () => {
    const first = await signingKey("key-2026-01");
    const second = await signingKey("key-2026-02");
    published = [first.jwk];
    fetches = 0;
    const verify = verifier();
    expect(await verify.verify(await tokenOf(first, "user-1"))).toMatchObject({ sub: "user-1" });
    expect(fetches).toBe(1);

    // The issuer rotates: the new key is published beside the old one, and signs from now on.
    published = [first.jwk, second.jwk];
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + JWKS_REFETCH_COOLDOWN_MS + 1);
    expect(await verify.verify(await tokenOf(second, "user-2"))).toMatchObject({ sub: "user-2" });
    expect(fetches).toBe(2);
    // Both keys are cached now: tokens of either verify without another fetch.
    expect(await verify.verify(await tokenOf(first, "user-1"))).toMatchObject({ sub: "user-1" });
    expect(await verify.verify(await tokenOf(second, "user-2"))).toMatchObject({ sub: "user-2" });
    expect(fetches).toBe(2);

    // The old key is withdrawn; once the set is fetched again its tokens are refused.
    published = [second.jwk];
    vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1);
    expect(await verify.verify(await tokenOf(first, "user-1"))).toBeUndefined();
    expect(await verify.verify(await tokenOf(second, "user-2"))).toMatchObject({ sub: "user-2" });
  });

  it("refetches at most once per cooldown for unknown kids, and never verifies a token against the wrong kid", async () => {
    const known = await signingKey("known");
    const stranger = await signingKey("stranger");
    published = [known.jwk];
    fetches = 0;
    const verify = verifier();
    expect(await verify.verify(await tokenOf(known, "user-1"))).toMatchObject({ sub: "user-1" });
    expect(fetches).toBe(1);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + JWKS_REFETCH_COOLDOWN_MS + 1);
    for (let i = 0; i < 5; i++)
      expect(await verify.verify(await tokenOf(stranger, "x", `made-up-${i}`))).toBeUndefined();
    expect(fetches).toBe(2);
    // A token that names the known kid but is signed by another key fails its signature.
    expect(await verify.verify(await tokenOf(stranger, "x", "known"))).toBeUndefined();
    expect(fetches).toBe(2);

    vi.setSystemTime(Date.now() + JWKS_REFETCH_COOLDOWN_MS + 1);
    expect(await verify.verify(await tokenOf(stranger, "x", "made-up-again"))).toBeUndefined();
    expect(fetches).toBe(3);
  });
});
