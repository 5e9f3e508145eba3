import { readFileSync } from "node:fs";

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeEach, describe, expect, it } from "vitest";

import {
  type AsyncProvisioningWorld,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { uniqueName } from "../../support/provisioningWorld.ts";

/**
 * The poll's `Job` is a union discriminated by `type`, each job type with its typed `result`
 * (docs/decisions/0037, "Names"). Real jobs of three types run on the real worker against the
 * simulator; each answer is validated against its type's schema in docs/openapi.json — the one a
 * generated client trusts — not against the open fallback.
 */

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = (addFormatsModule as unknown as { default: FormatsPlugin }).default;

/** The document's component schemas under `$defs` (their `$id`s and `$schema`s dropped), for ajv. */
function componentValidator(name: string): ValidateFunction {
  const document = JSON.parse(readFileSync("docs/openapi.json", "utf8")) as {
    components: { schemas: Record<string, Record<string, unknown>> };
  };
  const defs: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(document.components.schemas)) {
    const { $id: _id, $schema: _schema, ...rest } = schema;
    defs[key] = JSON.parse(JSON.stringify(rest).replace(/"#\/components\/schemas\//g, '"#/$defs/'));
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` });
}

function expectValid(name: string, value: unknown): void {
  const validate = componentValidator(name);
  expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

let w: AsyncProvisioningWorld;
beforeEach(() => {
  delete process.env.SERENITY_ASYNC_PROVISIONING;
});
useAsyncProvisioningWorld(
  (world) => {
    w = world;
  },
  { settings: { settleMode: "reads", settleReads: 0 } },
);

const brandUrl = (brandId: string, path = "") => `${w.brandsUrl()}/${brandId}${path}`;

/** A brand with its sub-workspace and a US market, made synchronously. */
async function activeBrand(): Promise<string> {
  const created = await w.call("POST", w.brandsUrl(), { name: uniqueName("Typed"), domain: "brand.example" });
  expect(created.status).toBe(201);
  const activated = await w.call("POST", brandUrl(created.body.id, "/serenity/activate"), {
    markets: [{ market: "US", languageCode: "en" }],
  });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  return created.body.id;
}

/** Drains the worker, then polls the job at `location`: COMPLETED. */
async function completed(location: string) {
  await w.drain();
  const polled = await w.call("GET", location);
  expect(polled.status).toBe(200);
  expect(polled.body, JSON.stringify(polled.body)).toMatchObject({ status: "COMPLETED" });
  return polled.body;
}

describe("GET …/serenity/jobs/{jobId}: each job type's result is typed", () => {
  it("provisionWorkspace (an async create market): the create's 201 as MarketCreatedResult", async () => {
    const brandId = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), {
      market: "DE",
      languageCode: "de",
      async: true,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const job = await completed(accepted.body.job.location);
    expect(job).toMatchObject({
      type: "provisionWorkspace",
      result: { status: 201, body: { market: { geoTargetId: 2276, languageCode: "de" } } },
    });
    expectValid("ProvisionWorkspaceJob", job);
    expectValid("MarketCreatedResult", job.result);
    expectValid("Job", job);
  });

  it("provisionWorkspace (an async activate with a market): the activation as ActivatedResult", async () => {
    const brandId = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {
      markets: [
        { market: "FR", languageCode: "fr" },
        { market: "US", languageCode: "en" },
      ],
      async: true,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const job = await completed(accepted.body.job.location);
    // Each market's outcome in words; `status` (the HTTP status its create would have answered) deprecated.
    expect(job.result).toMatchObject({
      status: 200,
      body: {
        brandId,
        status: "active",
        markets: [
          { geoTargetId: 2250, languageCode: "fr", outcome: "created", status: 201 },
          { geoTargetId: 2840, languageCode: "en", outcome: "exists", status: 409 },
        ],
      },
    });
    expectValid("ProvisionWorkspaceJob", job);
    expectValid("ActivatedResult", job.result);
  });

  it("propagateBrandIdentity (a PATCH): done, with the version and the markets synced", async () => {
    const brandId = await activeBrand();
    const patched = await w.call("PATCH", brandUrl(brandId), { aliases: ["Typed Co"] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const job = await completed(patched.body.job.location);
    expect(job).toMatchObject({
      type: "propagateBrandIdentity",
      result: { brandId, status: "done", identityVersion: expect.any(Number), marketsSynced: 1 },
    });
    expectValid("PropagateBrandIdentityJob", job);
    expectValid("Job", job);
  });

  it("a typed schema is not the open fallback: a result of the wrong shape fails its type's schema", async () => {
    const brandId = await activeBrand();
    const patched = await w.call("PATCH", brandUrl(brandId), { aliases: ["Typed Corp"] });
    const job = await completed(patched.body.job.location);
    const validate = componentValidator("PropagateBrandIdentityJob");
    expect(validate({ ...job, result: { status: 201, body: {} } })).toBe(false);
    expect(validate({ ...job, result: { brandId, status: "finished" } })).toBe(false);
    // …while the open fallback would take anything.
    expect(componentValidator("OtherJob")({ ...job, type: "someFutureJob", result: { any: 1 } })).toBe(true);
  });
});
