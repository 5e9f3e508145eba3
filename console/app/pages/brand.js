// @ts-check
import { useState } from "../../vendor/hooks.js";
import { isNotFound } from "../api.js";
import {
  ActionNote,
  Badge,
  ConfirmButton,
  DataTable,
  ErrorNote,
  Loading,
  NotFound,
  usePageTitle,
} from "../components/common.js";
import { NewMarketForm } from "../components/forms.js";
import { GenerationCell } from "../components/generation.js";
import { IdentityForm } from "../components/identity.js";
import { JobRows } from "../components/jobs.js";
import { PromptPreviewPanel } from "../components/preview.js";
import {
  deactivateBrand,
  deleteBrand,
  deleteMarket,
  getBrand,
  listJobs,
  listMarkets,
  reauthGeneration,
} from "../endpoints.js";
import { formatClock, formatNumber, formatTime } from "../format.js";
import { GENERATION_JOB_TYPE, generationJobsByMarket, marketKey } from "../generation.js";
import { html } from "../html.js";
import { identityKey } from "../identity.js";
import { useLive } from "../live.js";
import { Link, navigate } from "../router.js";

/** @typedef {import("../types.js").Market} Market */
/** @typedef {import("../types.js").JobSummary} JobSummary */
/** @typedef {import("../components/common.js").Column<Market>} MarketColumn */

/** Generation jobs read per refresh: one per market, so a brand's markets fit in one page. */
const GENERATION_JOBS_LIMIT = 200;

/**
 * The columns of a brand's market table (a column is one entry).
 * @param {string} orgId
 * @param {string} brandId
 * @param {(market: Market) => any} actions
 * @param {(market: Market) => any} generation the market's prompt generation state
 * @returns {MarketColumn[]}
 */
export function marketColumns(orgId, brandId, actions, generation) {
  return [
    {
      key: "market",
      header: "Market",
      cell: (
        market,
      ) => html`<${Link} href=${`/console/orgs/${orgId}/brands/${brandId}/markets/${market.geoTargetId}/${market.languageCode}`}>
        ${market.country} · ${market.languageCode}<//>`,
    },
    { key: "geo", header: "Geo target", cell: (market) => String(market.geoTargetId) },
    {
      key: "publish",
      header: "Publish status",
      cell: (market) => html`<${Badge} value=${market.publishStatus} />`,
    },
    {
      key: "models",
      header: "Models",
      cell: (market) => market.models.map((model) => model.name).join(", ") || "—",
    },
    { key: "prompts", header: "Prompts", cell: (market) => formatNumber(market.promptCount) },
    { key: "generation", header: "Generation", cell: generation },
    { key: "created", header: "Created", cell: (market) => formatTime(market.createdAt) },
    { key: "actions", header: "Actions", cell: actions },
  ];
}

/**
 * A brand: its state and provisioning, its markets with their prompt generation, its recent jobs;
 * create a market (with or without generation), preview generated prompts for one and accept them,
 * re-authenticate a generation waiting for a sign-in, delete a market, deactivate the brand. Four
 * API calls per refresh (the generation states are one filtered page of the org's job list).
 * @param {{ orgId: string, brandId: string }} props
 */
export function BrandPage({ orgId, brandId }) {
  const [note, setNote] = useState(/** @type {{ message: string, tone?: "ok" | "error" } | null} */ (null));
  const [previewing, setPreviewing] = useState(/** @type {string | null} */ (null));
  const live = useLive(
    {
      brand: () => getBrand(orgId, brandId),
      markets: () => listMarkets(orgId, brandId),
      jobs: () => listJobs(orgId, { brandId, limit: 10 }),
      generation: () => listJobs(orgId, { brandId, type: GENERATION_JOB_TYPE, limit: GENERATION_JOBS_LIMIT }),
    },
    [orgId, brandId],
  );
  const brand = live.data.brand;
  usePageTitle(isNotFound(live.errors.brand) ? "Not found" : (brand?.name ?? "Brand"));
  if (isNotFound(live.errors.brand)) return html`<${NotFound} what="brand" />`;
  if (!brand)
    return html`<${ErrorNote} error=${live.errors.brand} what="load the brand" />${live.loaded ? null : html`<${Loading} />`}`;

  /** @param {() => Promise<unknown>} action @param {string} done */
  const act = async (action, done) => {
    try {
      await action();
      setNote({ message: done });
    } catch (error) {
      setNote({
        message: `That did not work: ${error instanceof Error ? error.message : "unknown error"}`,
        tone: "error",
      });
    }
    await live.refresh();
  };

  const generationJobs = generationJobsByMarket(live.data.generation?.items ?? []);
  /** @param {JobSummary} job */
  const reauth = (job) =>
    act(
      () => reauthGeneration(orgId, brandId, job.id),
      "Signed in again: the generation resumes where it stopped.",
    );
  const columns = marketColumns(
    orgId,
    brandId,
    (market) => html`<div class="actions actions-tight">
      <button type="button" onClick=${() => setPreviewing(marketKey(market))}
        aria-label=${`Preview prompts for ${market.country} · ${market.languageCode}`}>Preview prompts</button>
      <${ConfirmButton} label="Delete" danger
        question=${`Delete the market ${market.country} · ${market.languageCode} and its upstream project? Its prompts go with it.`}
        onConfirm=${() => act(() => deleteMarket(orgId, brandId, market.geoTargetId, market.languageCode), "Market deleted.")} />
    </div>`,
    (market) => html`<${GenerationCell} job=${generationJobs.get(marketKey(market))} onReauth=${reauth} />`,
  );
  const previewed = live.data.markets?.items.find((market) => marketKey(market) === previewing);
  const provisioning = brand.provisioning;

  return html`<section aria-labelledby="page-title">
    <p class="crumbs"><${Link} href=${`/console/orgs/${orgId}`}>Organisation<//> / brand</p>
    <h1 id="page-title">${brand.name}</h1>
    <p class="muted">updated ${formatClock(live.updatedAt)}</p>
    <${ActionNote} message=${note?.message ?? null} tone=${note?.tone} />
    <dl class="facts">
      <div><dt>Status</dt><dd><${Badge} value=${brand.status} /></dd></div>
      <div><dt>Mode</dt><dd>${brand.mode}</dd></div>
      <div><dt>Sub-workspace</dt><dd>${brand.subWorkspaceId ? html`<code>${brand.subWorkspaceId}</code>` : "none"}</dd></div>
      <div>
        <dt>Provisioning</dt>
        <dd data-field="provisioning">
          <${Badge} value=${provisioning.status} label=${provisioning.status ?? "never"} />
          ${provisioning.jobId ? html` <${Link} href=${`/console/orgs/${orgId}/jobs/${provisioning.jobId}`}>job<//>` : null}
          ${provisioning.error ? html`<div class="small">${provisioning.error}</div>` : null}
        </dd>
      </div>
      <div><dt>Domain</dt><dd>${brand.domain ?? "—"}</dd></div>
      <div><dt>Aliases</dt><dd data-field="aliases">${brand.aliases.join(", ") || "—"}</dd></div>
      <div><dt>Competitors</dt><dd data-field="competitors">${brand.competitors.map((c) => `${c.name} (${c.domain})`).join(", ") || "—"}</dd></div>
      <div><dt>URLs</dt><dd data-field="urls">${brand.urls.length}</dd></div>
      ${
        brand.rejectedAliases.length > 0
          ? html`<div><dt>Rejected by Semrush</dt><dd data-field="rejected-aliases">${brand.rejectedAliases.join(", ")}</dd></div>`
          : null
      }
    </dl>
    <div class="actions">
      <${ConfirmButton} label="Deactivate" danger disabled=${brand.status === "deleted"}
        question="Deactivate this brand? Its markets' projects are deleted upstream and its allocation goes back to the pool; the brand stays, pending."
        onConfirm=${() => act(() => deactivateBrand(orgId, brandId), "Brand deactivated.")} />
      <${ConfirmButton} label="Delete brand" danger
        question="Delete this brand? It is deactivated (its projects deleted upstream, its allocation returned), then deleted: its pages answer not found and its name is free again."
        onConfirm=${async () => {
          try {
            await deleteBrand(orgId, brandId);
            navigate(`/console/orgs/${orgId}`);
          } catch (error) {
            setNote({
              message: `That did not work: ${error instanceof Error ? error.message : "unknown error"}`,
              tone: "error",
            });
          }
        }} />
    </div>
    <details class="create">
      <summary>Edit identity…</summary>
      <${IdentityForm} key=${identityKey(brand)} orgId=${orgId} brand=${brand}
        onDone=${(/** @type {string} */ message) => {
          setNote({ message });
          void live.refresh();
        }} />
    </details>

    <section aria-labelledby="markets-title" class="block">
      <h2 id="markets-title">Markets</h2>
      <${ErrorNote} error=${live.errors.markets} what="load the markets" />
      ${
        live.data.markets
          ? html`<${DataTable} caption="Markets" columns=${columns} rows=${live.data.markets.items}
            rowKey=${(/** @type {Market} */ market) => `${market.geoTargetId}-${market.languageCode}`} empty="No markets yet." />`
          : null
      }
      ${
        previewed
          ? html`<${PromptPreviewPanel} key=${previewing} orgId=${orgId} brandId=${brandId} market=${previewed}
              onClose=${() => setPreviewing(null)}
              onAccepted=${(
                /** @type {string} */ message,
                /** @type {"ok" | "error" | undefined} */ tone,
              ) => {
                setPreviewing(null);
                setNote({ message, tone });
                void live.refresh();
              }} />`
          : null
      }
      <${ErrorNote} error=${live.errors.generation} what="load the generation states" />
      <details class="create">
        <summary>Add a market…</summary>
        <${NewMarketForm} orgId=${orgId} brandId=${brandId} onDone=${(/** @type {string} */ message) => {
          setNote({ message });
          void live.refresh();
        }} />
      </details>
    </section>

    <section aria-labelledby="jobs-title" class="block">
      <h2 id="jobs-title">Recent jobs</h2>
      <${ErrorNote} error=${live.errors.jobs} what="load the jobs" />
      ${live.data.jobs ? html`<${JobRows} orgId=${orgId} jobs=${live.data.jobs.items} caption="Recent jobs of this brand" />` : null}
    </section>
  </section>`;
}
