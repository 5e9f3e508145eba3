import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { catalogueLanguageId, catalogueModelId, PE } from "../../support/simulator.ts";
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
  it("languages: the live catalogue, 38 entries with UUID ids and English names", async () => {
    const body = (await call(sim, "GET", `${PE}/v1/languages`)).json();
    expect(body.page).toBe(1);
    expect(body.total).toBe(38);
    expect(body.items).toHaveLength(38);
    expect(body.items).toContainEqual({ id: catalogueLanguageId("en"), name: "English" });
    expect(body.items.map((item: { name: string }) => item.name)).toEqual(
      expect.arrayContaining(["French", "German", "Spanish", "Chinese Simplified"]),
    );
  });

  it("ai_models: the live catalogue, 11 models with UUID ids, the live keys, names and icons, paginated", async () => {
    const body = (await call(sim, "GET", `${PE}/v1/ai_models?page=1&limit=50`)).json();
    expect(body.total).toBe(11);
    expect(body.items.map((item: { key: string }) => item.key)).toEqual([
      "open-evidence",
      "search-gpt",
      "gpt-5",
      "google-ai-overview",
      "google-ai-mode",
      "perplexity",
      "microsoft-copilot",
      "grok-3",
      "gemini-2.5-flash",
      "claude-sonnet-4",
      "deepseek",
    ]);
    expect(body.items[1]).toEqual({
      id: "eab23d14-df70-463f-8779-3f6a4ba770bc",
      key: "search-gpt",
      name: "ChatGPT",
      icon: "openai",
    });
    const page2 = (await call(sim, "GET", `${PE}/v1/ai_models?page=2&limit=4`)).json();
    expect(page2.items.map((item: { key: string }) => item.key)).toEqual([
      "google-ai-mode",
      "perplexity",
      "microsoft-copilot",
      "grok-3",
    ]);
  });

  it("a snapshot saved with the old catalogue's integer ids loads with the live ids (by model key and language code)", async () => {
    const legacy = await startTestSimulator({
      seed: {
        workspaces: [{ id: GOLD, title: "Gold", parent_id: null, limits_enabled: { ai: true } }],
        projects: [
          {
            id: "p-old",
            workspace_id: GOLD,
            name: "Old FR",
            country_code: "fr",
            location_id: 2250,
            // French and Perplexity in the old simulator's numbering.
            language_id: 2,
            models: [{ id: "a-old", model_id: 7 }],
          },
        ],
      },
    });
    try {
      const project = (
        await call(legacy, "GET", `${PE}/v1/workspaces/${GOLD}/projects/p-old?draft=true&type=ai`)
      ).json();
      expect(project.settings.ai.language).toEqual({ id: catalogueLanguageId("fr"), name: "fr" });
      const models = (
        await call(legacy, "GET", `${PE}/v1/workspaces/${GOLD}/projects/p-old/ai_models`)
      ).json();
      expect(models.items.map((item: { model: { id: string } }) => item.model.id)).toEqual([
        catalogueModelId("perplexity"),
      ]);
      expect((await legacy.dump()).projects[0]).toMatchObject({
        language_id: catalogueLanguageId("fr"),
        models: [{ id: "a-old", model_id: catalogueModelId("perplexity") }],
      });
    } finally {
      await legacy.close();
    }
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
