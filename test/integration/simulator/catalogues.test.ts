import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PE } from "../../support/simulator.ts";
import {
  call,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  startTestSimulator,
  type TestSimulator,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold" });
});
afterAll(() => sim.close());

const topics = async (domain: string, country: string) => {
  const response = await call(
    sim,
    "GET",
    `${PE}/v1/workspaces/${GOLD}/brand-topics?domain=${encodeURIComponent(domain)}&country=${country}`,
  );
  expect(response.status).toBe(200);
  return response.json() as { topic?: string; volume: number; prompts: string[] }[];
};

describe("catalogues", () => {
  it("languages: 38 entries with English names", async () => {
    const body = (await call(sim, "GET", `${PE}/v1/languages`)).json();
    expect(body.page).toBe(1);
    expect(body.total).toBe(38);
    expect(body.items).toHaveLength(38);
    expect(body.items[0]).toEqual({ id: 1, name: "English" });
    expect(body.items.map((item: { name: string }) => item.name)).toEqual(
      expect.arrayContaining(["French", "German", "Spanish"]),
    );
  });

  it("ai_models: the catalogue keys of the spec, with ids, names and icons, paginated", async () => {
    const body = (await call(sim, "GET", `${PE}/v1/ai_models?page=1&limit=50`)).json();
    expect(body.total).toBe(10);
    expect(body.items.map((item: { key: string }) => item.key)).toEqual([
      "search-gpt",
      "gpt-5",
      "google-ai-overview",
      "google-ai-mode",
      "gemini-2.5-flash",
      "claude-sonnet-4",
      "perplexity",
      "grok-3",
      "deepseek",
      "microsoft-copilot",
    ]);
    expect(body.items[0]).toEqual({
      id: 1,
      key: "search-gpt",
      name: "ChatGPT Search",
      icon: expect.any(String),
    });
    const page2 = (await call(sim, "GET", `${PE}/v1/ai_models?page=2&limit=4`)).json();
    expect(page2.items.map((item: { id: number }) => item.id)).toEqual([5, 6, 7, 8]);
  });

  it("brand-topics is deterministic for a domain and country and names the brand", async () => {
    const first = await topics("acme-shoes.com", "us");
    expect(await topics("acme-shoes.com", "us")).toEqual(first);
    expect(first.length).toBeGreaterThanOrEqual(8);
    for (const entry of first) {
      expect(typeof entry.volume).toBe("number");
      expect(Array.isArray(entry.prompts)).toBe(true);
    }
    // Mostly complete topics, plus the gaps live catalogues have: no text (empty or absent), no examples.
    const complete = first.filter((entry) => entry.topic && entry.prompts.length > 0);
    expect(complete.length).toBeGreaterThanOrEqual(8);
    expect(first.some((entry) => entry.topic === "")).toBe(true);
    expect(first.some((entry) => !("topic" in entry))).toBe(true);
    expect(first.some((entry) => entry.topic && entry.prompts.length === 0)).toBe(true);
    expect(first.some((entry) => entry.prompts.some((prompt) => prompt.includes("Acme Shoes")))).toBe(true);
    expect(await topics("other-brand.io", "us")).not.toEqual(first);
  });

  it("brand-topics picks the seed language from the country (en, fr, de, es, it, pt, nl)", async () => {
    const all = (entries: { topic?: string; prompts: string[] }[]) =>
      entries.map((entry) => `${entry.topic ?? ""} ${entry.prompts.join(" ")}`).join(" ");
    expect(all(await topics("acme.fr", "fr"))).toMatch(/ \?|é/);
    expect(all(await topics("acme.de", "de"))).toMatch(/[äöüß]|Preise|Erfahrungen|Alternativen/);
    expect(all(await topics("acme.es", "es"))).toMatch(/¿/);
    expect(all(await topics("acme.com", "gb"))).toMatch(/What|How|Is /);
    expect(all(await topics("acme.it", "it"))).toMatch(/\b(Quanto|Quali|Come|Cosa)\b/);
    expect(all(await topics("acme.pt", "pt"))).toMatch(/ção|ções|\b(Quanto|Como|Quais)\b/);
    expect(all(await topics("acme.com.br", "br"))).toMatch(/ção|ções|\b(Quanto|Como|Quais)\b/);
    expect(all(await topics("acme.nl", "nl"))).toMatch(/\b(Hoe|Wat|Welke)\b/);
  });

  it("brand-topics serves the catalogue the domain names, or the one the industries setting picks", async () => {
    const names = async (domain: string) => (await topics(domain, "us")).map((entry) => entry.topic ?? "");
    expect(await names("swiftrun.example")).toContain("road running shoes");
    expect(await names("northwind.example")).not.toContain("cruises");
    await sim.control("/settings", { industries: { "northwind.example": "travel", "*": "generic" } });
    try {
      expect(await names("northwind.example")).toContain("cruises");
      expect(await names("swiftrun.example")).not.toContain("road running shoes");
      const refused = await call(sim, "POST", "/__sim/settings", {
        body: { industries: { "*": "fashion" } },
      });
      expect(refused.status).toBe(400);
    } finally {
      await sim.control("/settings", { industries: {} });
    }
    expect(await names("northwind.example")).not.toContain("cruises");
  });

  it("brand-topics requires domain and country", async () => {
    const missing = await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/brand-topics?domain=acme.com`);
    expect(missing.status).toBe(400);
    expect(missing.contentType).toMatch(/^text\/plain/);
  });
});
