import { describe, expect, it } from "vitest";

import {
  call,
  createProject,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  projectPath,
  publish,
  type TestSimulator,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

/**
 * The simulator's benchmarks, brand URLs and CI competitors as stateful resources (issue 37):
 * create → the list reflects it → update → delete, over real HTTP, with the published answers
 * (IDs with `existing_count`, 202 on update and delete, 409 for the own brand's benchmark and for
 * a duplicate name or URL, 404 text/plain for an unknown benchmark) and the draft layer.
 */

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

async function newProject(): Promise<{ id: string; v1: string; v2: string }> {
  const created = await createProject(sim, GOLD, { brand_names: ["Acme", "Acme Co", "AC"] });
  expect(created.status).toBe(201);
  const id = created.json().id as string;
  return { id, v1: projectPath(GOLD, id), v2: projectPath(GOLD, id, "v2") };
}

const listBenchmarks = async (v1: string) =>
  (await call(sim, "GET", `${v1}/ai_models/benchmarks?draft=true`)).json().aio_benchmarks as {
    id: string;
    brand_name: string;
    brand_aliases: string[];
    rejected_brand_aliases: string[];
    domain: string;
    main_brand: boolean;
  }[];

describe("benchmarks", () => {
  it("the own brand's comes with the project; a batch creates, reports existing by domain, update and delete follow", async () => {
    const project = await newProject();
    const [main] = await listBenchmarks(project.v1);
    expect(main).toMatchObject({
      brand_name: "Acme",
      brand_aliases: ["Acme Co", "AC"],
      rejected_brand_aliases: ["AC"],
      domain: "acme.com",
      main_brand: true,
    });

    const created = await call(sim, "POST", `${project.v2}/ai_models/benchmarks`, {
      body: [
        { brand_name: "Globex", domain: "globex.example", brand_aliases: ["Globex Corp"] },
        { brand_name: "Hooli", domain: "hooli.example" },
      ],
    });
    expect(created.status).toBe(200);
    expect(created.json()).toEqual({ ids: [expect.any(String), expect.any(String)], existing_count: 0 });
    const again = await call(sim, "POST", `${project.v2}/ai_models/benchmarks`, {
      body: [{ brand_name: "Globex again", domain: "WWW.globex.example" }],
    });
    expect(again.json()).toEqual({ ids: [], existing_count: 1 });
    const clash = await call(sim, "POST", `${project.v2}/ai_models/benchmarks`, {
      body: [{ brand_name: "globex corp", domain: "other.example" }],
    });
    expect(clash.status).toBe(409);
    expect((await listBenchmarks(project.v1)).map((b) => b.brand_name).sort()).toEqual([
      "Acme",
      "Globex",
      "Hooli",
    ]);

    const [globexId, hooliId] = created.json().ids as string[];
    const updated = await call(sim, "PUT", `${project.v1}/ai_models/benchmarks/${globexId}`, {
      body: { brand_name: "Globex", domain: "globex.example", brand_aliases: ["GX"] },
    });
    expect(updated.status).toBe(202);
    expect((await listBenchmarks(project.v1)).find((b) => b.id === globexId)).toMatchObject({
      brand_aliases: ["GX"],
      rejected_brand_aliases: ["GX"],
    });

    const refused = await call(sim, "DELETE", `${project.v1}/ai_models/benchmarks`, {
      body: { ids: [main!.id] },
    });
    expect(refused.status).toBe(409);
    const deleted = await call(sim, "DELETE", `${project.v1}/ai_models/benchmarks`, {
      body: { ids: [hooliId] },
    });
    expect(deleted.status).toBe(202);
    expect((await listBenchmarks(project.v1)).map((b) => b.brand_name).sort()).toEqual(["Acme", "Globex"]);
  });

  it("a change to a live project's benchmarks is draft until published", async () => {
    const project = await newProject();
    await call(sim, "PATCH", project.v1, { body: { type: "ai", primary_url: "https://acme.com/" } });
    expect((await publish(sim, GOLD, project.id)).status).toBe(202);
    await call(sim, "POST", `${project.v2}/ai_models/benchmarks`, {
      body: [{ brand_name: "Globex", domain: "globex.example" }],
    });
    const read = await call(sim, "GET", `${project.v1}?draft=true&type=ai`);
    expect(read.json().publish_status).toBe("live_with_unpublished_updates");
    expect(read.json().settings.ai.benchmarks_count).toBe(2);
  });
});

describe("brand URLs", () => {
  it("create skips a URL the project has; list reflects; update (409 on a duplicate); delete ignores foreign ids", async () => {
    const project = await newProject();
    const [main] = await listBenchmarks(project.v1);
    const urls = `${project.v2}/aio/benchmarks/${main!.id}/brand_urls`;
    const created = await call(sim, "POST", urls, {
      body: [
        { url: "https://acme.com/", type: "owned" },
        { url: "https://social.example/acme", type: "social" },
        { url: "https://acme.com/", type: "owned" },
      ],
    });
    expect(created.json()).toEqual({ ids: [expect.any(String), expect.any(String)], existing_count: 1 });
    const listed = (await call(sim, "GET", `${urls}?draft=true`)).json().brand_urls;
    expect(listed.map((u: { url: string; type: string }) => [u.url, u.type])).toEqual([
      ["https://acme.com/", "owned"],
      ["https://social.example/acme", "social"],
    ]);
    const [ownedId, socialId] = created.json().ids as string[];
    const duplicate = await call(sim, "PUT", `${urls}/${socialId}`, { body: { url: "https://acme.com/" } });
    expect(duplicate.status).toBe(409);
    expect(
      (await call(sim, "PUT", `${urls}/${socialId}`, { body: { url: "https://x.example/", type: "earned" } }))
        .status,
    ).toBe(202);
    expect(
      (await call(sim, "POST", urls, { body: [{ url: "https://acme.com/", type: "x".repeat(33) }] })).status,
    ).toBe(400);
    expect(
      (await call(sim, "DELETE", urls, { body: { ids: [ownedId, "not-a-url-of-this-benchmark"] } })).status,
    ).toBe(202);
    const after = (await call(sim, "GET", urls)).json().brand_urls;
    expect(after.map((u: { url: string; type: string }) => [u.url, u.type])).toEqual([
      ["https://x.example/", "earned"],
    ]);
    const unknown = await call(sim, "GET", `${project.v2}/aio/benchmarks/nope/brand_urls`);
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toMatch(/^text\/plain/);
  });
});

describe("CI competitors", () => {
  it("a PUT replaces them whole, and the project read shows them under settings.ci", async () => {
    const project = await newProject();
    const put = async (domains: string[]) =>
      call(sim, "PUT", `${project.v1}/ci/competitors`, {
        body: { ci_competitors: domains.map((domain) => ({ domain })) },
      });
    expect((await put(["globex.example", "hooli.example"])).json().ci_competitors).toHaveLength(2);
    expect((await put(["hooli.example"])).status).toBe(200);
    const read = await call(sim, "GET", `${project.v1}?draft=true&type=ai`);
    expect(read.json().settings.ci.competitors.map((c: { domain: string }) => c.domain)).toEqual([
      "hooli.example",
    ]);
  });
});
