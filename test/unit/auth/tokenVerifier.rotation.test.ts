import { describe, expect, it } from "vitest";

import { signDevToken } from "../../../src/auth/tokenVerifier.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { createVerifier, localAuthSecret } from "../../../src/runtime/verifier.ts";

const OLD = "the-secret-before-the-rotation";
const NEW = "the-secret-after-the-rotation!!";

function configOf(env: Record<string, string>) {
  return loadConfig({ SERENITY_DATA_DIR: "/nonexistent", ...env });
}

describe("rotating the auth secret", () => {
  it("verifies tokens signed with the previous secret during the window, and signs with the current one", async () => {
    const during = configOf({ SERENITY_AUTH_SECRET: NEW, SERENITY_AUTH_SECRET_PREVIOUS: OLD });
    const verifier = await createVerifier(during);
    const oldToken = await signDevToken(OLD, { sub: "user-old" });
    const newToken = await signDevToken(await localAuthSecret(during), { sub: "user-new" });
    expect(await verifier.verify(oldToken)).toMatchObject({ sub: "user-old" });
    expect(await verifier.verify(newToken)).toMatchObject({ sub: "user-new" });
    // New tokens are signed with the current secret: they verify once the previous one is gone.
    const after = await createVerifier(configOf({ SERENITY_AUTH_SECRET: NEW }));
    expect(await after.verify(newToken)).toMatchObject({ sub: "user-new" });
  });

  it("refuses a token signed with a previous secret once it is removed", async () => {
    const oldToken = await signDevToken(OLD, { sub: "user-old" });
    const after = await createVerifier(configOf({ SERENITY_AUTH_SECRET: NEW }));
    expect(await after.verify(oldToken)).toBeUndefined();
  });

  it("refuses a token signed with a secret that is neither current nor previous", async () => {
    const verifier = await createVerifier(
      configOf({ SERENITY_AUTH_SECRET: NEW, SERENITY_AUTH_SECRET_PREVIOUS: OLD }),
    );
    expect(
      await verifier.verify(await signDevToken("some-other-secret-value", { sub: "x" })),
    ).toBeUndefined();
  });

  it("refuses a previous secret without a current one", () => {
    expect(() => configOf({ SERENITY_AUTH_SECRET_PREVIOUS: OLD })).toThrow(
      /SERENITY_AUTH_SECRET is required with SERENITY_AUTH_SECRET_PREVIOUS/,
    );
  });
});
