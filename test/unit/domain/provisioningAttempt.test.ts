import { describe, expect, it } from "vitest";

import {
  ATTEMPT_TRANSITIONS,
  concurrencyVerdict,
  DEFAULT_PROVISIONING_STALE_MS,
  isProvisioningErrorSentence,
  PROVISIONING_ERROR_SENTENCES,
  provisioningErrorSentence,
} from "../../../src/domain/provisioningAttempt.ts";

const now = new Date("2026-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms);

describe("the concurrency guard verdict", () => {
  it("proceeds when there is no attempt or the last one finished", () => {
    for (const status of [null, "ready", "failed"] as const) {
      expect(concurrencyVerdict({ provisioningStatus: status, updatedAt: ago(0) }, now)).toBe("proceed");
      // Even a very old or unreadable timestamp does not matter when nothing is pending.
      expect(concurrencyVerdict({ provisioningStatus: status, updatedAt: "garbage" }, now)).toBe("proceed");
    }
  });

  it("answers inProgress for a fresh pending attempt, right up to the threshold", () => {
    expect(concurrencyVerdict({ provisioningStatus: "pending", updatedAt: ago(0) }, now)).toBe("inProgress");
    expect(
      concurrencyVerdict(
        { provisioningStatus: "pending", updatedAt: ago(DEFAULT_PROVISIONING_STALE_MS - 1) },
        now,
      ),
    ).toBe("inProgress");
  });

  it("answers stale once the attempt is untouched for the threshold or longer", () => {
    expect(
      concurrencyVerdict(
        { provisioningStatus: "pending", updatedAt: ago(DEFAULT_PROVISIONING_STALE_MS) },
        now,
      ),
    ).toBe("stale");
    expect(concurrencyVerdict({ provisioningStatus: "pending", updatedAt: ago(3_600_000) }, now)).toBe(
      "stale",
    );
  });

  it("honours a custom threshold", () => {
    const snapshot = { provisioningStatus: "pending" as const, updatedAt: ago(5_000) };
    expect(concurrencyVerdict(snapshot, now, 4_000)).toBe("stale");
    expect(concurrencyVerdict(snapshot, now, 6_000)).toBe("inProgress");
  });

  it("treats an unreadable or missing timestamp as fresh (never tears down a live attempt)", () => {
    for (const updatedAt of [null, undefined, "not a date", new Date(Number.NaN)]) {
      expect(concurrencyVerdict({ provisioningStatus: "pending", updatedAt }, now)).toBe("inProgress");
    }
  });

  it("treats a timestamp in the future (clock skew) as fresh", () => {
    expect(
      concurrencyVerdict({ provisioningStatus: "pending", updatedAt: new Date(now.getTime() + 60_000) }, now),
    ).toBe("inProgress");
  });

  it("reads an ISO string timestamp", () => {
    expect(
      concurrencyVerdict(
        { provisioningStatus: "pending", updatedAt: ago(DEFAULT_PROVISIONING_STALE_MS).toISOString() },
        now,
      ),
    ).toBe("stale");
  });
});

describe("provisioning error sentences", () => {
  it("is a fixed set of short sentences without ids or numbers", () => {
    const sentences = Object.values(PROVISIONING_ERROR_SENTENCES);
    expect(new Set(sentences).size).toBe(sentences.length);
    for (const sentence of sentences) {
      expect(sentence.length).toBeLessThanOrEqual(2000);
      expect(sentence).not.toMatch(/\d/);
      expect(isProvisioningErrorSentence(sentence)).toBe(true);
    }
    expect(provisioningErrorSentence("deactivated")).toBe("Deactivated while provisioning");
    expect(isProvisioningErrorSentence("upstream said: 500 <html>")).toBe(false);
  });
});

describe("the attempt transitions", () => {
  it("names, for each of T1–T7, the database operations that carry it out", async () => {
    expect(Object.keys(ATTEMPT_TRANSITIONS)).toEqual(["T1", "T2", "T3", "T4", "T5", "T6", "T7"]);
    for (const transition of Object.values(ATTEMPT_TRANSITIONS)) {
      for (const name of transition.modules) {
        const module = (await import(`../../../src/db/brands/${name}.ts`)) as Record<string, unknown>;
        expect(typeof module[name], name).toBe("function");
      }
    }
  });
});
