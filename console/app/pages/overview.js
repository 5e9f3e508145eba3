// @ts-check
import { isNotFound } from "../api.js";
import { Badge, DataTable, ErrorNote, Loading, NotFound, usePageTitle } from "../components/common.js";
import { NewBrandForm } from "../components/forms.js";
import { AllocationBars, MeteringFacts, PoolBars } from "../components/pool.js";
import { PoolChart } from "../components/poolChart.js";
import { getOrg, getPoolHistory, getPoolView, listBrands, listLedger } from "../endpoints.js";
import { formatClock, formatNumber, formatTime } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { Link, navigate } from "../router.js";

/** @typedef {import("../types.js").Brand} Brand */
/** @typedef {import("../types.js").LedgerEntry} LedgerEntry */
/** @typedef {import("../types.js").PoolBrand} PoolBrand */
/** @typedef {import("../types.js").PoolSample} PoolSample */

export const LEDGER_ROWS = 15;

/** @param {{ projects: number, prompts: number } | null} units */
function unitsText(units) {
  return units ? `${formatNumber(units.projects)} projects, ${formatNumber(units.prompts)} prompts` : "—";
}

/**
 * The recorded samples, ending with the pool as the view shows it (dated by the parent's `asOf`:
 * when Serenity last learned it), so the line reaches the present even between recorded samples.
 * @param {PoolSample[]} samples
 * @param {import("../types.js").PoolView | undefined} view
 * @returns {PoolSample[]}
 */
function withCurrent(samples, view) {
  const last = samples.at(-1);
  if (!view?.pool) return samples;
  const asOf = view.pool.asOf ?? view.sampledAt;
  if (last && Date.parse(last.sampledAt) >= Date.parse(asOf)) return samples;
  return [...samples, { sampledAt: asOf, projects: view.pool.projects, prompts: view.pool.prompts }];
}

/**
 * The org at a glance: its pool as stacked bars, the pool free over time, its brands with their
 * allocation, and the latest ledger entries. Four API calls per refresh (one per data set), the
 * org itself once.
 * @param {{ orgId: string }} props
 */
export function OverviewPage({ orgId }) {
  const org = useLive({ org: () => getOrg(orgId) }, [orgId], { intervalMs: 60_000 });
  const missing = isNotFound(org.errors.org);
  const live = useLive(
    {
      pool: () => getPoolView(orgId),
      history: () => getPoolHistory(orgId),
      brands: () => listBrands(orgId),
      ledger: () => listLedger(orgId, LEDGER_ROWS),
    },
    [orgId],
    { enabled: !missing },
  );
  const name = org.data.org?.name ?? "Organisation";
  usePageTitle(missing ? "Not found" : name);
  if (missing) return html`<${NotFound} what="organisation" />`;

  const brands = live.data.brands?.items ?? [];
  const names = new Map(brands.map((brand) => [brand.id, brand.name]));
  /** @type {Map<string, PoolBrand>} */
  const allocations = new Map((live.data.pool?.brands ?? []).map((brand) => [brand.brandId, brand]));

  /** @type {import("../components/common.js").Column<Brand>[]} */
  const brandColumns = [
    {
      key: "name",
      header: "Brand",
      cell: (brand) => html`<${Link} href=${`/console/orgs/${orgId}/brands/${brand.id}`}>${brand.name}<//>`,
    },
    {
      key: "status",
      header: "Status",
      cell: (brand) => html`<${Badge} value=${brand.status} /> <span class="muted">${brand.mode}</span>`,
    },
    {
      key: "provisioning",
      header: "Provisioning",
      cell: (
        brand,
      ) => html`<${Badge} value=${brand.provisioning.status} label=${brand.provisioning.status ?? "never"} />
        ${brand.provisioning.error ? html`<div class="small">${brand.provisioning.error}</div>` : null}`,
    },
    {
      key: "allocation",
      header: "Allocation (used, drafted, slack)",
      className: "wide",
      cell: (brand) => html`<${AllocationBars} brand=${allocations.get(brand.id)} />`,
    },
    {
      key: "stranded",
      header: "Stranded",
      cell: (brand) => unitsText(allocations.get(brand.id)?.stranded ?? null),
    },
  ];

  /** @type {import("../components/common.js").Column<LedgerEntry>[]} */
  const ledgerColumns = [
    { key: "when", header: "When", cell: (entry) => formatTime(entry.createdAt) },
    {
      key: "brand",
      header: "Brand",
      cell: (entry) => (entry.brandId ? (names.get(entry.brandId) ?? entry.brandId.slice(0, 8)) : "—"),
    },
    { key: "reason", header: "Reason", cell: (entry) => html`<${Badge} value=${entry.reason} />` },
    {
      key: "change",
      header: "Allocation before → after",
      cell: (entry) => `${unitsText(entry.before)} → ${unitsText(entry.after)}`,
    },
    {
      key: "outcome",
      header: "Outcome",
      cell: (entry) =>
        html`<${Badge} value=${entry.outcome} />${entry.errorCode ? html` <code>${entry.errorCode}</code>` : null}`,
    },
  ];

  const pool = live.data.pool;
  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">${name}</h1>
    <p class="muted">
      ${org.data.org?.parentWorkspaceId ? html`Parent workspace <code>${org.data.org.parentWorkspaceId}</code>` : "No parent workspace configured"}
      ${pool ? html` · dynamic allocation <${Badge} value=${pool.dynamicAllocation ? "on" : "off"} />` : null}
      ${pool && org.data.org?.parentWorkspaceId ? html` · <${MeteringFacts} view=${pool} /> ` : null}
      · updated ${formatClock(live.updatedAt)}
    </p>
    <${ErrorNote} error=${org.errors.org} what="load the organisation" />

    <section aria-labelledby="pool-title" class="block">
      <h2 id="pool-title">Pool</h2>
      <${ErrorNote} error=${live.errors.pool} what="read the pool" />
      ${pool ? html`<${PoolBars} view=${pool} />` : live.loaded ? null : html`<${Loading} />`}
    </section>

    <section aria-labelledby="history-title" class="block">
      <h2 id="history-title">Pool free over time</h2>
      <${ErrorNote} error=${live.errors.history} what="load the pool history" />
      ${live.data.history ? html`<${PoolChart} samples=${withCurrent(live.data.history.items, pool)} />` : null}
    </section>

    <section aria-labelledby="brands-title" class="block">
      <h2 id="brands-title">Brands</h2>
      <${ErrorNote} error=${live.errors.brands} what="load the brands" />
      ${
        live.data.brands
          ? html`<${DataTable} caption="Brands and their allocation" columns=${brandColumns} rows=${brands}
            rowKey=${(/** @type {Brand} */ brand) => brand.id} empty="No brands yet." />`
          : null
      }
      <details class="create">
        <summary>New brand…</summary>
        <${NewBrandForm} orgId=${orgId}
          onCreated=${(/** @type {string} */ brandId) => navigate(`/console/orgs/${orgId}/brands/${brandId}`)} />
      </details>
    </section>

    <section aria-labelledby="ledger-title" class="block">
      <h2 id="ledger-title">Latest ledger entries</h2>
      <${ErrorNote} error=${live.errors.ledger} what="load the ledger" />
      ${
        live.data.ledger
          ? html`<${DataTable} caption="Allocation ledger, newest first" columns=${ledgerColumns} rows=${live.data.ledger.items}
            rowKey=${(/** @type {LedgerEntry} */ entry) => String(entry.id)} empty="No transfers yet." />`
          : null
      }
    </section>
  </section>`;
}
