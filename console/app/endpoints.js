// @ts-check
// Every API route the console calls, typed with the route's own response schema (types.d.ts).
import { api } from "./api.js";

/** @typedef {import("./types.js").OrgList} OrgList */
/** @typedef {import("./types.js").Org} Org */
/** @typedef {import("./types.js").Brand} Brand */
/** @typedef {import("./types.js").BrandList} BrandList */
/** @typedef {import("./types.js").BrandAccepted} BrandAccepted */
/** @typedef {import("./types.js").BrandPatch} BrandPatch */
/** @typedef {import("./types.js").BrandUpdated} BrandUpdated */
/** @typedef {import("./types.js").BrandDeleteAccepted} BrandDeleteAccepted */
/** @typedef {import("./types.js").MarketList} MarketList */
/** @typedef {import("./types.js").PromptPage} PromptPage */
/** @typedef {import("./types.js").Prompt} Prompt */
/** @typedef {import("./types.js").BulkPromptResult} BulkPromptResult */
/** @typedef {import("./types.js").PoolView} PoolView */
/** @typedef {import("./types.js").PoolHistory} PoolHistory */
/** @typedef {import("./types.js").PoolSummaries} PoolSummaries */
/** @typedef {import("./types.js").LedgerPage} LedgerPage */
/** @typedef {import("./types.js").JobListPage} JobListPage */
/** @typedef {import("./types.js").JobTimeline} JobTimeline */
/** @typedef {import("./types.js").PromptPreview} PromptPreview */
/** @typedef {import("./types.js").PromptGenerationHandle} PromptGenerationHandle */
/** @typedef {import("./types.js").UpstreamHealth} UpstreamHealth */

const part = encodeURIComponent;
const org = (/** @type {string} */ orgId) => `/v2/orgs/${part(orgId)}`;
const brand = (/** @type {string} */ orgId, /** @type {string} */ brandId) =>
  `${org(orgId)}/brands/${part(brandId)}`;

/**
 * Every page of a list (the API pages every list with `cursor` and `nextCursor`), as one list.
 * @template T
 * @param {string} path
 * @returns {Promise<{ items: T[], nextCursor: null }>}
 */
async function allPages(path) {
  /** @type {T[]} */
  const items = [];
  /** @type {string | null} */
  let cursor = null;
  do {
    /** @type {{ items: T[], nextCursor: string | null }} */
    const page = await api(path, { query: { limit: 200, cursor } });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return { items, nextCursor: null };
}

/** @returns {Promise<OrgList>} */
export const listOrgs = () => allPages("/v2/orgs");
/** @param {string} orgId @returns {Promise<Org>} */
export const getOrg = (orgId) => api(org(orgId));
/** @returns {Promise<PoolSummaries>} */
export const listPoolSummaries = () => api("/v2/serenity/pool-summaries");
/** @returns {Promise<UpstreamHealth>} */
export const getUpstreamHealth = () => api("/v2/serenity/upstream-health");

/** @param {string} orgId @returns {Promise<PoolView>} */
export const getPoolView = (orgId) => api(`${org(orgId)}/serenity/resources`);
/** @param {string} orgId @returns {Promise<PoolHistory>} */
export const getPoolHistory = (orgId) => api(`${org(orgId)}/serenity/pool-history`);
/** @param {string} orgId @param {number} limit @returns {Promise<LedgerPage>} */
export const listLedger = (orgId, limit) =>
  api(`${org(orgId)}/serenity/allocation-ledger`, { query: { limit } });

/** @param {string} orgId @returns {Promise<BrandList>} */
export const listBrands = (orgId) => allPages(`${org(orgId)}/brands`);
/** @param {string} orgId @param {string} brandId @returns {Promise<Brand>} */
export const getBrand = (orgId, brandId) => api(brand(orgId, brandId));
/**
 * @param {string} orgId
 * @param {{ name: string, domain?: string, semrushMarket?: { market: string, languageCode: string, generatePrompts?: boolean }, async?: boolean }} body
 * @returns {Promise<(Brand | BrandAccepted) & { promptGeneration?: PromptGenerationHandle }>}
 */
export const createBrand = (orgId, body) => api(`${org(orgId)}/brands`, { method: "POST", body });
/** @param {string} orgId @param {string} brandId @param {BrandPatch} body @returns {Promise<BrandUpdated>} */
export const updateBrand = (orgId, brandId, body) => api(brand(orgId, brandId), { method: "PATCH", body });
/** @param {string} orgId @param {string} brandId @returns {Promise<BrandDeleteAccepted>} */
export const deleteBrand = (orgId, brandId) => api(brand(orgId, brandId), { method: "DELETE" });
/** @param {string} orgId @param {string} brandId @returns {Promise<{ brandId: string, status: string }>} */
export const deactivateBrand = (orgId, brandId) =>
  api(`${brand(orgId, brandId)}/serenity/deactivate`, { method: "POST" });

/** @param {string} orgId @param {string} brandId @returns {Promise<MarketList>} */
export const listMarkets = (orgId, brandId) => allPages(`${brand(orgId, brandId)}/serenity/markets`);
/**
 * @param {string} orgId
 * @param {string} brandId
 * @param {{ market: string, languageCode: string, async?: boolean, generatePrompts?: boolean }} body
 * @returns {Promise<{ market: import("./types.js").Market, promptGeneration?: PromptGenerationHandle } | { jobId: string, status: string }>}
 */
export const createMarket = (orgId, brandId, body) =>
  api(`${brand(orgId, brandId)}/serenity/markets`, { method: "POST", body });
/** @param {string} orgId @param {string} brandId @param {number} geoTargetId @param {string} languageCode @returns {Promise<null>} */
export const deleteMarket = (orgId, brandId, geoTargetId, languageCode) =>
  api(`${brand(orgId, brandId)}/serenity/markets/${geoTargetId}/${part(languageCode)}`, { method: "DELETE" });

/**
 * @param {string} orgId
 * @param {string} brandId
 * @param {{ geoTargetId: number, languageCode: string, page: number, limit: number, search?: string, sort?: string, order?: string }} query
 * @returns {Promise<PromptPage>}
 */
export const listPrompts = (orgId, brandId, query) =>
  api(`${brand(orgId, brandId)}/serenity/prompts`, { query: { ...query, includeDrafts: true } });
/**
 * Edits a prompt in place (spec/api.md §5): its text, the id kept.
 * @param {string} orgId
 * @param {string} brandId
 * @param {string} promptId
 * @param {{ geoTargetId: number, languageCode: string, text?: string, category?: string | null }} body
 * @returns {Promise<Prompt>}
 */
export const editPrompt = (orgId, brandId, promptId, body) =>
  api(`${brand(orgId, brandId)}/serenity/prompts/${part(promptId)}`, { method: "PATCH", body });
/**
 * Deletes prompts across markets, each market published once (spec/api.md §5).
 * @param {string} orgId
 * @param {string} brandId
 * @param {{ geoTargetId: number, languageCode: string, ids: string[] }[]} items
 * @returns {Promise<{ items: { index: number, status: number }[] }>}
 */
export const bulkDeletePrompts = (orgId, brandId, items) =>
  api(`${brand(orgId, brandId)}/serenity/prompts/bulk-delete`, { method: "POST", body: { items } });
/**
 * @param {string} orgId
 * @param {string} brandId
 * @param {{ text: string, geoTargetId: number, languageCode: string, category?: string }[]} items
 * @returns {Promise<BulkPromptResult>}
 */
export const createPrompts = (orgId, brandId, items) =>
  api(`${brand(orgId, brandId)}/serenity/prompts`, { method: "POST", body: { items } });
/**
 * Generated prompts for a market, for review: nothing is written (spec/generation.md §8).
 * @param {string} orgId
 * @param {string} brandId
 * @param {number} geoTargetId
 * @param {string} languageCode
 * @param {{ count?: number }} body
 * @returns {Promise<PromptPreview>}
 */
export const previewPrompts = (orgId, brandId, geoTargetId, languageCode, body) =>
  api(`${brand(orgId, brandId)}/serenity/markets/${geoTargetId}/${part(languageCode)}/prompt-preview`, {
    method: "POST",
    body,
  });
/**
 * Resumes a generation job that needs a sign-in, with this session's token (spec/generation.md §5).
 * @param {string} orgId
 * @param {string} brandId
 * @param {string} jobId
 * @returns {Promise<{ jobId: string, jobType: string, status: string }>}
 */
export const reauthGeneration = (orgId, brandId, jobId) =>
  api(`${brand(orgId, brandId)}/serenity/markets/generation/jobs/${part(jobId)}/reauth`, { method: "POST" });
/**
 * @param {string} orgId
 * @param {string} brandId
 * @param {{ geoTargetId: number, languageCode: string, ids: string[] }} body
 * @returns {Promise<null>}
 */
export const deletePrompts = (orgId, brandId, body) =>
  api(`${brand(orgId, brandId)}/serenity/prompts`, { method: "DELETE", body });

/**
 * @param {string} orgId
 * @param {{ status?: string, type?: string, brandId?: string, cursor?: string, limit?: number }} query
 * @returns {Promise<JobListPage>}
 */
export const listJobs = (orgId, query) => api(`${org(orgId)}/serenity/jobs`, { query });
/** @param {string} orgId @param {string} jobId @returns {Promise<JobTimeline>} */
export const getJobTimeline = (orgId, jobId) => api(`${org(orgId)}/serenity/jobs/${part(jobId)}/timeline`);

/**
 * A market's categories, breadth-first (spec/api.md §5).
 * @param {string} orgId
 * @param {string} brandId
 * @param {number} geoTargetId
 * @param {string} languageCode
 * @returns {Promise<{ items: { id: string, name: string, parentId: string | null, depth: number, promptCount: number }[] }>}
 */
export const listCategories = (orgId, brandId, geoTargetId, languageCode) =>
  api(`${brand(orgId, brandId)}/serenity/markets/${geoTargetId}/${part(languageCode)}/categories`);
/**
 * Creates (no id), renames or moves (an id) a category of a market.
 * @param {string} orgId
 * @param {string} brandId
 * @param {number} geoTargetId
 * @param {string} languageCode
 * @param {string | null} categoryId
 * @param {{ name?: string, parentId?: string | null }} body
 * @returns {Promise<unknown>}
 */
export const saveCategory = (orgId, brandId, geoTargetId, languageCode, categoryId, body) =>
  api(
    `${brand(orgId, brandId)}/serenity/markets/${geoTargetId}/${part(languageCode)}/categories${categoryId ? `/${part(categoryId)}` : ""}`,
    { method: categoryId ? "PATCH" : "POST", body },
  );
/**
 * Deletes a category; its prompts move to `reassignTo` when given.
 * @param {string} orgId
 * @param {string} brandId
 * @param {number} geoTargetId
 * @param {string} languageCode
 * @param {string} categoryId
 * @param {string | undefined} reassignTo
 * @returns {Promise<null>}
 */
export const deleteCategory = (orgId, brandId, geoTargetId, languageCode, categoryId, reassignTo) =>
  api(
    `${brand(orgId, brandId)}/serenity/markets/${geoTargetId}/${part(languageCode)}/categories/${part(categoryId)}`,
    {
      method: "DELETE",
      query: { reassignTo },
    },
  );
