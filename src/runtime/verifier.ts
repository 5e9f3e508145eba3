import { AUTH_SECRET_FILE, readOrCreateSecret } from "../auth/secrets.ts";
import { hs256Verifier, jwksVerifier, type TokenVerifier } from "../auth/tokenVerifier.ts";
import type { Config } from "../config/env.ts";

/** The local HS256 secret: `SERENITY_AUTH_SECRET`, else the one generated into the data dir. */
export async function localAuthSecret(config: Config): Promise<string> {
  return config.auth.secret ?? (await readOrCreateSecret(config.dataDir, AUTH_SECRET_FILE));
}

export async function createVerifier(config: Config): Promise<TokenVerifier> {
  const { jwksUrl, issuer, audience } = config.auth;
  if (jwksUrl && issuer && audience) return jwksVerifier({ jwksUrl, issuer, audience });
  const previous = config.auth.previousSecret ? [config.auth.previousSecret] : [];
  return hs256Verifier(await localAuthSecret(config), previous);
}
