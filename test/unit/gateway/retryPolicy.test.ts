import { describe, expect, it } from "vitest";

import {
  type AttemptOutcome,
  backoffMs,
  decideRetry,
  isIdempotentMethod,
  MAX_THROTTLED_RETRIES,
  MAX_WAIT_MS,
  parseRetryAfter,
} from "../../../src/gateway/retryPolicy.ts";

const NOW = new Date("2026-01-01T00:00:00.000Z");

function decide(method: string, outcome: AttemptOutcome, retriesSoFar = 0, random = () => 0.5) {
  return decideRetry({ method, outcome, retriesSoFar, maxRetries: 2, now: NOW, random });
}

describe("isIdempotentMethod", () => {
  it.each([
    ["GET", true],
    ["HEAD", true],
    ["PUT", true],
    ["DELETE", true],
    ["get", true],
    ["POST", false],
    ["PATCH", false],
  ])("%s → %s", (method, expected) => expect(isIdempotentMethod(method)).toBe(expected));
});

describe("decideRetry: which outcomes are retried", () => {
  const methods = ["GET", "HEAD", "PUT", "DELETE", "POST", "PATCH"];
  it.each(methods)("429 is retried for %s", (method) => {
    expect(decide(method, { type: "answer", status: 429 }).retry).toBe(true);
  });
  it.each(["GET", "HEAD", "PUT", "DELETE"])(
    "5xx, timeout and network failures are retried for %s",
    (method) => {
      for (const status of [500, 502, 503, 504])
        expect(decide(method, { type: "answer", status }).retry).toBe(true);
      expect(decide(method, { type: "timeout" }).retry).toBe(true);
      expect(decide(method, { type: "network" }).retry).toBe(true);
    },
  );
  it.each(["POST", "PATCH"])("5xx, timeout and network failures are never retried for %s", (method) => {
    for (const status of [500, 502, 503, 504])
      expect(decide(method, { type: "answer", status }).retry).toBe(false);
    expect(decide(method, { type: "timeout" }).retry).toBe(false);
    expect(decide(method, { type: "network" }).retry).toBe(false);
  });
  it("a POST marked idempotent in effect (transfer, publish, prompt create) is retried like a PUT", () => {
    const idempotent = (outcome: AttemptOutcome, retriesSoFar = 0) =>
      decideRetry({
        method: "POST",
        idempotent: true,
        outcome,
        retriesSoFar,
        maxRetries: 2,
        now: NOW,
        random: () => 0.5,
      });
    for (const status of [500, 502, 503, 504])
      expect(idempotent({ type: "answer", status }).retry).toBe(true);
    expect(idempotent({ type: "timeout" }).retry).toBe(true);
    expect(idempotent({ type: "network" }).retry).toBe(true);
    expect(idempotent({ type: "answer", status: 422 }).retry).toBe(false);
    expect(idempotent({ type: "answer", status: 503 }, 2).retry).toBe(false);
  });
  it.each([400, 401, 403, 404, 405, 409, 422])("a %s is never retried, even for GET", (status) => {
    expect(decide("GET", { type: "answer", status }).retry).toBe(false);
  });
  it("stops after two retries", () => {
    expect(decide("GET", { type: "answer", status: 503 }, 0).retry).toBe(true);
    expect(decide("GET", { type: "answer", status: 503 }, 1).retry).toBe(true);
    expect(decide("GET", { type: "answer", status: 503 }, 2).retry).toBe(false);
  });
  it("retries a 429 past maxRetries, within the deadline, up to MAX_THROTTLED_RETRIES", () => {
    const throttled = (throttledSoFar: number, deadlineAt?: number) =>
      decideRetry({
        method: "POST",
        outcome: { type: "answer", status: 429 },
        retriesSoFar: 2,
        throttledSoFar,
        maxRetries: 2,
        now: NOW,
        random: () => 0,
        ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      });
    expect(throttled(5).retry).toBe(true);
    expect(throttled(MAX_THROTTLED_RETRIES).retry).toBe(false);
    // backoff(3) with no jitter is 800 ms: retried if it ends before the deadline, not otherwise.
    expect(throttled(3, NOW.getTime() + 801)).toEqual({ retry: true, waitMs: 800 });
    expect(throttled(3, NOW.getTime() + 800)).toEqual({ retry: false });
  });
  it("maxRetries 0 disables retries", () => {
    const decision = decideRetry({
      method: "GET",
      outcome: { type: "answer", status: 503 },
      retriesSoFar: 0,
      maxRetries: 0,
      now: NOW,
      random: () => 0,
    });
    expect(decision).toEqual({ retry: false });
  });
});

describe("decideRetry: how long to wait", () => {
  it("honours Retry-After in seconds exactly (no jitter)", () => {
    expect(decide("POST", { type: "answer", status: 429, retryAfter: "3" })).toEqual({
      retry: true,
      waitMs: 3000,
    });
    expect(decide("GET", { type: "answer", status: 429, retryAfter: "0" })).toEqual({
      retry: true,
      waitMs: 0,
    });
  });
  it("honours Retry-After as an HTTP date", () => {
    const at = new Date(NOW.getTime() + 7000).toUTCString();
    expect(decide("POST", { type: "answer", status: 429, retryAfter: at })).toEqual({
      retry: true,
      waitMs: 7000,
    });
  });
  it("caps a long Retry-After at 20 s", () => {
    expect(decide("GET", { type: "answer", status: 429, retryAfter: "120" })).toEqual({
      retry: true,
      waitMs: MAX_WAIT_MS,
    });
  });
  it("falls back to backoff for a 429 without a usable Retry-After", () => {
    expect(decide("GET", { type: "answer", status: 429 }, 0, () => 0)).toEqual({ retry: true, waitMs: 100 });
    const second = decideRetry({
      method: "GET",
      outcome: { type: "answer", status: 429, retryAfter: "soon" },
      retriesSoFar: 0,
      throttledSoFar: 1,
      maxRetries: 2,
      now: NOW,
      random: () => 0,
    });
    expect(second).toEqual({ retry: true, waitMs: 200 });
  });
  it("ignores Retry-After on a 5xx (backoff instead)", () => {
    expect(decide("GET", { type: "answer", status: 503, retryAfter: "9" }, 0, () => 0.999999)).toEqual({
      retry: true,
      waitMs: 200,
    });
  });
});

describe("backoffMs", () => {
  it("grows exponentially from 200 ms with equal jitter", () => {
    expect(backoffMs(0, () => 0)).toBe(100);
    expect(backoffMs(0, () => 0.5)).toBe(150);
    expect(backoffMs(0, () => 0.9999999)).toBe(200);
    expect(backoffMs(1, () => 0.9999999)).toBe(400);
    expect(backoffMs(2, () => 0)).toBe(400);
    expect(backoffMs(3, () => 0.9999999)).toBe(1600);
  });
  it("never exceeds 20 s however many retries", () => {
    for (let retries = 0; retries < 40; retries += 1) {
      expect(backoffMs(retries, () => 0.9999999)).toBeLessThanOrEqual(MAX_WAIT_MS);
    }
    expect(backoffMs(20, () => 0)).toBe(MAX_WAIT_MS);
  });
});

describe("parseRetryAfter", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["  ", undefined],
    ["5", 5000],
    [" 12 ", 12_000],
    ["1.5", undefined],
    ["-1", undefined],
    ["tomorrow", undefined],
  ])("%j → %j", (value, expected) => expect(parseRetryAfter(value, NOW)).toBe(expected));
  it("accepts the obsolete RFC 850 and asctime date forms", () => {
    expect(parseRetryAfter("Thursday, 01-Jan-26 00:00:05 GMT", NOW)).toBe(5000);
    expect(parseRetryAfter("Thu Jan  1 00:00:09 2026", NOW)).toBeTypeOf("number");
  });
  it("a date in the past means now", () => {
    expect(parseRetryAfter(new Date(NOW.getTime() - 60_000).toUTCString(), NOW)).toBe(0);
  });
});
