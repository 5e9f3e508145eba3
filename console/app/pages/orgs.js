// @ts-check
import { StackedBar } from "../components/bars.js";
import { DataTable, ErrorNote, Loading, usePageTitle } from "../components/common.js";
import { listOrgs, listPoolSummaries } from "../endpoints.js";
import { formatNumber, formatTime } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { Link } from "../router.js";

/** @typedef {import("../types.js").Org} Org */
/** @typedef {import("../types.js").PoolSummaries["items"][number]} PoolSummary */
/** @typedef {import("../types.js").PoolDimension} PoolDimension */

/** @param {{ dimension: PoolDimension, name: string }} props */
function FreeBar({ dimension, name }) {
  const inUse = dimension.total - dimension.free;
  return html`<div class="free-bar">
    <${StackedBar} compact label=${`Pool ${name}`} segments=${[
      { key: "used", label: "in use", value: inUse },
      { key: "free", label: "free", value: dimension.free },
    ]} />
    <span>${formatNumber(dimension.free)} of ${formatNumber(dimension.total)} free</span>
  </div>`;
}

/** Every org the token may see (admins: all), with its pool's free units as of the newest sample. */
export function OrgsPage() {
  usePageTitle("Organisations");
  const live = useLive({ orgs: listOrgs, pools: listPoolSummaries }, []);
  const orgs = live.data.orgs?.items ?? [];
  const pools = new Map((live.data.pools?.items ?? []).map((pool) => [pool.orgId, pool]));

  /** @type {import("../components/common.js").Column<Org>[]} */
  const columns = [
    {
      key: "name",
      header: "Organisation",
      cell: (org) => html`<${Link} href=${`/console/orgs/${org.id}`}>${org.name}<//>`,
    },
    {
      key: "parent",
      header: "Parent workspace",
      cell: (org) =>
        org.parentWorkspaceId
          ? html`configured <code>${org.parentWorkspaceId}</code>`
          : html`<span class="muted">none</span>`,
    },
    {
      key: "projects",
      header: "Pool projects",
      cell: (org) => {
        const pool = pools.get(org.id);
        return pool
          ? html`<${FreeBar} name="projects" dimension=${pool.projects} />`
          : html`<span class="muted">not sampled yet</span>`;
      },
    },
    {
      key: "prompts",
      header: "Pool prompts",
      cell: (org) => {
        const pool = pools.get(org.id);
        return pool
          ? html`<${FreeBar} name="prompts" dimension=${pool.prompts} />`
          : html`<span class="muted">not sampled yet</span>`;
      },
    },
    { key: "sampled", header: "Sampled", cell: (org) => formatTime(pools.get(org.id)?.sampledAt) },
  ];

  return html`<section aria-labelledby="page-title">
    <h1 id="page-title">Organisations</h1>
    <p class="muted">The pool columns show the newest recorded sample; open an organisation to read its pool now.</p>
    <${ErrorNote} error=${live.errors.orgs} what="load the organisations" />
    <${ErrorNote} error=${live.errors.pools} what="load the pool samples" />
    ${
      live.loaded
        ? html`<${DataTable} caption="Organisations" columns=${columns} rows=${orgs} rowKey=${(/** @type {Org} */ org) => org.id}
          empty="Your token gives access to no organisation." />`
        : html`<${Loading} />`
    }
  </section>`;
}
