import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { RETRY_AFTER_CODES } from "../../src/api/retryAfter.ts";
import { isErrorCode } from "../../src/domain/errors.ts";
import { GENERATION_JOB_MESSAGES } from "../../src/generation/job/generationJobErrors.ts";
import { JOB_ERROR_MESSAGES } from "../../src/jobs/jobErrorMessages.ts";
import { DEFAULT_JOB_RETENTION_MS } from "../../src/jobs/reconciler.ts";
import { PROVISIONING_JOB_ERROR_MESSAGES } from "../../src/subWorkspaces/provisioningJobErrors.ts";

/**
 * docs/api-contract.md held against the code it describes: every job error code a record can carry
 * is in its casing table, spelled as the table says; the Retry-After codes and the retention it
 * names are the code's.
 */
const contract = readFileSync("docs/api-contract.md", "utf8");
const jobCodes = [
  ...new Set([
    ...Object.keys(JOB_ERROR_MESSAGES),
    ...Object.keys(PROVISIONING_JOB_ERROR_MESSAGES),
    ...Object.keys(GENERATION_JOB_MESSAGES),
  ]),
];

describe("docs/api-contract.md", () => {
  it("lists every job error code of the job registries", () => {
    for (const code of jobCodes) expect(contract, code).toContain(`\`${code}\``);
  });

  it("every job error code is a registry code, UPPER_SNAKE_CASE, or the one lower_snake_case code", () => {
    for (const code of jobCodes) {
      const shaped =
        isErrorCode(code) || /^[A-Z][A-Z0-9_]*$/.test(code) || code === "chained_job_enqueue_failed";
      expect(shaped, code).toBe(true);
    }
  });

  it("names the codes that carry Retry-After, with their seconds", () => {
    for (const [code, seconds] of Object.entries(RETRY_AFTER_CODES)) {
      expect(contract, code).toMatch(new RegExp(`\`${code}\` \\(${seconds}[) ]`));
    }
  });

  it("names the job retention", () => {
    expect(DEFAULT_JOB_RETENTION_MS).toBe(7 * 24 * 3600 * 1000);
    expect(contract).toContain("Finished jobs are kept 7 days (`SERENITY_JOB_RETENTION_MS`)");
  });
});
