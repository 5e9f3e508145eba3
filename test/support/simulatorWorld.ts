import { afterAll, beforeAll, beforeEach } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { catalogueLanguageId, PE, UM } from "./simulator.ts";

export const TOKEN = "sim-test-token";

/**
 * The simulator suites' world: the gold simulator on its own for the file, reset before every
 * test, driven with raw gateway calls over real HTTP (the helpers below).
 */
export function useSimulatorWorld(receive: (sim: TestSimulator) => void): void {
  let sim: TestSimulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ seed: "gold" });
    receive(sim);
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.control("/reset", {}));
}

export interface GatewayResponse {
  status: number;
  contentType: string;
  text: string;
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A raw gateway call over real HTTP (what the gateway client would send). */
export async function call(
  sim: TestSimulator,
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null } = {},
): Promise<GatewayResponse> {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text,
    json: () => JSON.parse(text),
  };
}

export interface Units {
  used: number;
  drafted: number;
  total: number;
}

export async function resources(
  sim: TestSimulator,
  workspaceId: string,
): Promise<{ projects: Units; prompts: Units }> {
  const response = await call(sim, "GET", `${UM}/v1/workspaces/${workspaceId}/resources`);
  if (response.status !== 200) throw new Error(`resources answered ${response.status}`);
  return response.json().product_resources.ai.resources;
}

export async function createChild(
  sim: TestSimulator,
  title: string,
  options: { parent?: string; allocation?: { projects?: number; prompts?: number } } = {},
): Promise<string> {
  const response = await call(
    sim,
    "POST",
    `${UM}/v2/workspaces/${options.parent ?? GOLD_PARENT_WORKSPACE_ID}/child`,
    {
      body: { title, resources: options.allocation ? { ai: options.allocation } : {} },
    },
  );
  if (response.status !== 200) throw new Error(`child create answered ${response.status}: ${response.text}`);
  return response.json().id;
}

/** Reads the status until it settles (bounded; the default read budget is 2). */
export async function settle(sim: TestSimulator, workspaceId: string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const status = (await call(sim, "GET", `${UM}/v1/workspaces/${workspaceId}/status`)).json().status;
    if (status !== "not ready") return status;
  }
  throw new Error("workspace never settled");
}

export async function transfer(
  sim: TestSimulator,
  workspaceId: string,
  ai: { projects?: number; prompts?: number },
) {
  return call(sim, "POST", `${UM}/v2/workspaces/${workspaceId}/resources/transfer`, {
    body: { resources: { ai } },
  });
}

export const ENGLISH_ID = catalogueLanguageId("en");

export function projectBody(overrides: Record<string, unknown> = {}) {
  return {
    name: "Acme US",
    type: "ai",
    brand_name_display: "Acme",
    brand_names: ["Acme"],
    domain: "acme.com",
    country_code: "us",
    location_id: 2840,
    location_name: "United States",
    language_id: ENGLISH_ID,
    ...overrides,
  };
}

export async function createProject(
  sim: TestSimulator,
  workspaceId: string,
  overrides: Record<string, unknown> = {},
) {
  return call(sim, "POST", `${PE}/v1/workspaces/${workspaceId}/projects`, { body: projectBody(overrides) });
}

export function projectPath(workspaceId: string, projectId: string, version = "v1"): string {
  return `${PE}/${version}/workspaces/${workspaceId}/projects/${projectId}`;
}

export async function createPrompts(
  sim: TestSimulator,
  workspaceId: string,
  projectId: string,
  names: string[],
  tagIds: string[] = [],
) {
  return call(sim, "POST", `${projectPath(workspaceId, projectId, "v3")}/aio/prompts`, {
    body: { items: names.map((name) => ({ name })), tag_ids: tagIds },
  });
}

export async function publish(sim: TestSimulator, workspaceId: string, projectId: string) {
  return call(sim, "POST", `${projectPath(workspaceId, projectId)}/publish`);
}

export async function patchPrimaryUrl(sim: TestSimulator, workspaceId: string, projectId: string) {
  return call(sim, "PATCH", projectPath(workspaceId, projectId), {
    body: { type: "ai", primary_url: "https://acme.com" },
  });
}

export { GOLD_PARENT_WORKSPACE_ID, startTestSimulator, type TestSimulator };
