import fs from "node:fs/promises";
import path from "node:path";
import zlib from "node:zlib";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CONSOLE_ROOT } from "../../../src/api/console/consoleBundle.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The console as the API process serves it (spec/console.md §2): the page at `/` and `/console/…`,
 * versioned assets with long-cache headers and compression, and the security headers on every
 * console response. The browser suite (test/browser/console.test.ts) runs the pages themselves.
 */

let t: TestApp;
let page: string;
let assetUrls: string[];

beforeAll(async () => {
  t = await createTestApp();
  const response = await t.app.inject({ method: "GET", url: "/" });
  page = response.body;
  assetUrls = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!);
});
afterAll(() => t.close());

function expectSecurityHeaders(headers: Record<string, unknown>) {
  const csp = String(headers["content-security-policy"]);
  const directives = new Map(
    csp.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );
  expect(directives.get("default-src")).toEqual(["'none'"]);
  expect(directives.get("script-src")).toEqual(["'self'"]);
  expect(directives.get("style-src")).toEqual(["'self'"]);
  expect(directives.get("connect-src")).toEqual(["'self'"]);
  expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
  expect(csp).not.toMatch(/unsafe-|https?:|\*|data:|blob:/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["x-frame-options"]).toBe("DENY");
}

describe("the console page", () => {
  it("is served at /, /console and any /console/… path, without a token, with the security headers", async () => {
    for (const url of [
      "/",
      "/console",
      "/console/",
      "/console/orgs",
      `/console/orgs/${crypto.randomUUID()}/jobs`,
    ]) {
      const response = await t.app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("no-cache");
      expectSecurityHeaders(response.headers);
      expect(response.body).toBe(page);
    }
    // The API itself still wants a token.
    expect((await t.app.inject({ method: "GET", url: "/v2/orgs" })).statusCode).toBe(401);
  });

  it("holds no inline script, no inline style, no event-handler attribute and no third-party URL", () => {
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/console\/assets\//);
      expect(body!.trim()).toBe("");
    }
    expect(page).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    expect(assetUrls.length).toBeGreaterThan(5);
    for (const url of assetUrls) expect(url).toMatch(/^\/console\/assets\/[0-9a-f]{16}\//);
  });

  it("answers a conditional reload with 304", async () => {
    const first = await t.app.inject({ method: "GET", url: "/console/orgs" });
    const again = await t.app.inject({
      method: "GET",
      url: "/console/orgs",
      headers: { "if-none-match": String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
  });
});

describe("the console's assets", () => {
  it("are versioned, cached for a year, typed, and compressed as the client accepts", async () => {
    for (const url of assetUrls) {
      const plain = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "identity" } });
      expect(plain.statusCode, url).toBe(200);
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers["content-type"]).toMatch(/^(text\/javascript|text\/css|image\/svg\+xml)/);
      expectSecurityHeaders(plain.headers);

      const br = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "gzip, br" } });
      expect(br.headers["content-encoding"]).toBe("br");
      expect(zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
      const gz = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "gzip, br;q=0" } });
      expect(gz.headers["content-encoding"]).toBe("gzip");
      expect(zlib.gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    }
  });

  it("resolve every module import to another served asset (no bare import, no CDN)", async () => {
    const prefix = assetUrls.find((url) => url.endsWith("/app/main.js"))!.replace(/app\/main\.js$/, "");
    const seen = new Set<string>();
    const queue = [`${prefix}app/main.js`];
    while (queue.length > 0) {
      const url = queue.pop()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const response = await t.app.inject({ method: "GET", url, headers: { "accept-encoding": "identity" } });
      expect(response.statusCode, url).toBe(200);
      // Our modules' JSDoc names type-only modules (`import("../types.js")`): comments are not code.
      const code = url.includes("/app/")
        ? response.body.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
        : response.body;
      const imports = [
        ...code.matchAll(/(?:^|[;}\n])\s*(?:import|export)\s*(?:[\w$*{}\s,]+?from\s*)?["']([^"']+)["']/g),
        ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
      ].map((match) => match[1]!);
      for (const specifier of imports) {
        expect(specifier, `${url} imports ${specifier}`).toMatch(/^\.\.?\//);
        queue.push(new URL(specifier, `http://console${url}`).pathname);
      }
    }
    // The whole app and every vendor module the app reaches (uPlot through the chart's dynamic import).
    expect([...seen].some((url) => url.endsWith("/vendor/uplot.js"))).toBe(true);
    expect([...seen].some((url) => url.endsWith("/vendor/hooks.js"))).toBe(true);
  });

  it("are 404 under another version or for an unknown file, with the same headers", async () => {
    const main = assetUrls.find((url) => url.endsWith("/app/main.js"))!;
    for (const url of [
      main.replace(/\/assets\/[0-9a-f]{16}\//, "/assets/0000000000000000/"),
      main.replace("main.js", "nope.js"),
      main.replace("app/main.js", "types.d.ts"),
      main.replace("app/main.js", "..%2f..%2f..%2fpackage.json"),
      "/console/assets",
    ]) {
      const response = await t.app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error).toBe("notFound");
      expectSecurityHeaders(response.headers);
    }
  });
});

describe("the console's own code", () => {
  it("keeps the token in sessionStorage only: no localStorage, cookie or URL use", async () => {
    const files = (await fs.readdir(path.join(CONSOLE_ROOT, "app"), { recursive: true })).filter((file) =>
      file.endsWith(".js"),
    );
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const source = await fs.readFile(path.join(CONSOLE_ROOT, "app", file), "utf8");
      expect(source, file).not.toMatch(
        /localStorage\.|document\.cookie|indexedDB\.|console\.(log|info|debug)\(/,
      );
      if (!file.endsWith("session.js")) expect(source, file).not.toMatch(/sessionStorage\./);
    }
  });
});
