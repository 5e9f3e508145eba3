import http from "node:http";
import type { AddressInfo } from "node:net";

import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { launchChromium } from "../support/chromium.ts";
import { createTestApp, type TestApp } from "../support/testApp.ts";

/**
 * A UI on a second origin calls the API from a real browser (ADR 0037): the preflight of an
 * authenticated JSON create passes without a token, the UI reads the answer's body and its exposed
 * headers, errors included; a page on an origin that is not configured cannot read anything.
 */
let t: TestApp;
let api: string;
let ui: http.Server;
let other: http.Server;
let browser: Browser;
let token: string;
let uiOrigin: string;
let otherOrigin: string;

async function pageServer(): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>UI</title><p>a product UI</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  const first = await pageServer();
  const second = await pageServer();
  ui = first.server;
  other = second.server;
  t = await createTestApp({ corsOrigins: [first.origin] });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  token = await t.token({ sub: "ui-admin", admin: true });
  browser = await launchChromium();
  uiOrigin = first.origin;
  otherOrigin = second.origin;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => ui?.close(resolve));
  await new Promise((resolve) => other?.close(resolve));
  await t?.close();
});

interface Seen {
  status: number;
  code?: string;
  name?: string;
  requestId: string | null;
  replayed: string | null;
}

/** Runs `fetch` in the page, as the UI's own script would. */
function callFrom(
  page: Page,
  request: { path: string; method: string; token?: string; key?: string; body?: unknown },
) {
  return page.evaluate(
    async ({ base, request }): Promise<Seen | { failed: string }> => {
      try {
        const headers: Record<string, string> = { accept: "application/json" };
        if (request.token) headers.authorization = `Bearer ${request.token}`;
        if (request.key) headers["idempotency-key"] = request.key;
        if (request.body !== undefined) headers["content-type"] = "application/json";
        const response = await fetch(`${base}${request.path}`, {
          method: request.method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
        const body = (await response.json()) as { code?: string; name?: string };
        return {
          status: response.status,
          code: body.code,
          name: body.name,
          requestId: response.headers.get("x-request-id"),
          replayed: response.headers.get("idempotent-replayed"),
        };
      } catch (error) {
        return { failed: (error as Error).name };
      }
    },
    { base: api, request },
  );
}

describe("a browser UI on a second origin", () => {
  it("creates with a preflighted request and reads the answer's body and headers", async () => {
    const page = await browser.newPage();
    await page.goto(uiOrigin);
    const create = {
      path: "/v2/orgs",
      method: "POST",
      token,
      key: "ui-create-1",
      body: { name: "From the UI" },
    };
    const first = await callFrom(page, create);
    expect(first).toMatchObject({ status: 201, name: "From the UI", replayed: null });
    expect((first as Seen).requestId).toMatch(/\S/);
    const repeat = await callFrom(page, create);
    expect(repeat).toMatchObject({ status: 201, name: "From the UI", replayed: "true" });
    const refused = await callFrom(page, { path: "/v2/orgs", method: "GET" });
    expect(refused).toMatchObject({ status: 401, code: "authenticationRequired" });
    expect((refused as Seen).requestId).toMatch(/\S/);
    await page.close();
  });

  it("reads nothing from an origin that is not configured", async () => {
    const page = await browser.newPage();
    await page.goto(otherOrigin);
    expect(await callFrom(page, { path: "/v2/orgs", method: "GET", token })).toEqual({ failed: "TypeError" });
    await page.close();
  });
});
