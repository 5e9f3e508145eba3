import type { GatewayName } from "../../src/gateway/types.ts";

/**
 * Every operation the gateway client can call (`client.users.*`, `client.projects.*`,
 * `client.benchmarks.*`), with the
 * published operation it sends: how the conformance suite knows each one was exercised through the
 * simulator and validated. The suite fails for a client method missing here, for a row the
 * documents do not hold, and for a row no exchange of the workload reached with a 2xx answer.
 *
 * Adding an upstream operation: the client method, its simulator route, a row here, and — when no
 * workflow of the workload reaches it yet — one call in the suite's "operations no workflow uses
 * yet" step (test/integration/gateway/upstreamConformance.test.ts).
 */
export interface ClientOperation {
  gateway: GatewayName;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The template exactly as the document writes it. */
  template: string;
}

const PROJECT = "/v1/workspaces/{id}/projects/{project_id}";
const PROJECT_V2 = "/v2/workspaces/{id}/projects/{project_id}";
const PROJECT_V3 = "/v3/workspaces/{id}/projects/{project_id}";
const BRAND_URLS = `${PROJECT_V2}/aio/benchmarks/{benchmark_id}/brand_urls`;

export const CLIENT_OPERATIONS: Record<string, ClientOperation> = {
  "users.createSubWorkspace": { gateway: "um", method: "POST", template: "/v2/workspaces/{id}/child" },
  "users.getStatus": { gateway: "um", method: "GET", template: "/v1/workspaces/{id}/status" },
  "users.getFamily": { gateway: "um", method: "GET", template: "/v1/workspaces/{id}/family" },
  "users.getResources": { gateway: "um", method: "GET", template: "/v1/workspaces/{id}/resources" },
  "users.transferResources": {
    gateway: "um",
    method: "POST",
    template: "/v2/workspaces/{id}/resources/transfer",
  },
  "users.getWorkspace": { gateway: "um", method: "GET", template: "/v1/workspaces/{id}" },
  "users.deleteWorkspace": { gateway: "um", method: "DELETE", template: "/v1/workspaces/{id}" },
  "users.renameWorkspace": { gateway: "um", method: "PUT", template: "/v1/workspaces/{id}" },
  "projects.listLanguages": { gateway: "pe", method: "GET", template: "/v1/languages" },
  "projects.listAiModels": { gateway: "pe", method: "GET", template: "/v1/ai_models" },
  "projects.listProjects": { gateway: "pe", method: "GET", template: "/v1/workspaces/{id}/projects" },
  "projects.createProject": { gateway: "pe", method: "POST", template: "/v1/workspaces/{id}/projects" },
  "projects.getProject": { gateway: "pe", method: "GET", template: PROJECT },
  "projects.patchProject": { gateway: "pe", method: "PATCH", template: PROJECT },
  "projects.deleteProject": { gateway: "pe", method: "DELETE", template: PROJECT },
  "projects.publishProject": { gateway: "pe", method: "POST", template: `${PROJECT}/publish` },
  "projects.getBrandTopics": { gateway: "pe", method: "GET", template: "/v1/workspaces/{id}/brand-topics" },
  "projects.listProjectAiModels": { gateway: "pe", method: "GET", template: `${PROJECT}/ai_models` },
  "projects.addProjectAiModel": { gateway: "pe", method: "POST", template: `${PROJECT_V2}/ai_models` },
  "projects.deleteProjectAiModels": { gateway: "pe", method: "DELETE", template: `${PROJECT}/ai_models` },
  "projects.listPrompts": { gateway: "pe", method: "POST", template: `${PROJECT_V2}/aio/prompts/by_tags` },
  "projects.createPrompts": { gateway: "pe", method: "POST", template: `${PROJECT_V3}/aio/prompts` },
  "projects.deletePrompts": { gateway: "pe", method: "DELETE", template: `${PROJECT_V2}/aio/prompts` },
  "projects.listTags": { gateway: "pe", method: "GET", template: `${PROJECT_V2}/aio/tags` },
  "projects.createTags": { gateway: "pe", method: "POST", template: `${PROJECT_V2}/aio/tags` },
  "projects.setPromptTags": { gateway: "pe", method: "PUT", template: `${PROJECT_V2}/aio/prompts/tags` },
  "projects.patchPrompt": {
    gateway: "pe",
    method: "PATCH",
    template: `${PROJECT_V3}/aio/prompts/{prompt_id}`,
  },
  "projects.renamePrompt": {
    gateway: "pe",
    method: "POST",
    template: `${PROJECT_V2}/aio/prompts/{prompt_id}/rename`,
  },
  "projects.patchTag": { gateway: "pe", method: "PATCH", template: `${PROJECT_V2}/aio/tags/{tag_id}` },
  "projects.deleteTags": { gateway: "pe", method: "DELETE", template: `${PROJECT_V2}/aio/tags` },
  "projects.getInitStatus": { gateway: "pe", method: "GET", template: `${PROJECT_V2}/aio/init_status` },
  // Issue 37: a brand's identity upstream (benchmarks, their brand URLs, CI competitors).
  "benchmarks.listBenchmarks": { gateway: "pe", method: "GET", template: `${PROJECT}/ai_models/benchmarks` },
  "benchmarks.createBenchmarks": {
    gateway: "pe",
    method: "POST",
    template: `${PROJECT_V2}/ai_models/benchmarks`,
  },
  "benchmarks.updateBenchmark": {
    gateway: "pe",
    method: "PUT",
    template: `${PROJECT}/ai_models/benchmarks/{benchmark_id}`,
  },
  "benchmarks.deleteBenchmarks": {
    gateway: "pe",
    method: "DELETE",
    template: `${PROJECT}/ai_models/benchmarks`,
  },
  "benchmarks.listBrandUrls": { gateway: "pe", method: "GET", template: BRAND_URLS },
  "benchmarks.createBrandUrls": { gateway: "pe", method: "POST", template: BRAND_URLS },
  "benchmarks.updateBrandUrl": { gateway: "pe", method: "PUT", template: `${BRAND_URLS}/{brand_url_id}` },
  "benchmarks.deleteBrandUrls": { gateway: "pe", method: "DELETE", template: BRAND_URLS },
  "benchmarks.replaceCiCompetitors": { gateway: "pe", method: "PUT", template: `${PROJECT}/ci/competitors` },
};
