// @ts-check
// The org's pool as stacked bars per dimension: what is used and drafted (in the parent and in
// every brand's sub-workspace), what is allocated to brands but unused, and what is still free in
// the pool. Their sum is the org's whole capacity (pool total + every sub-workspace total), which
// just-in-time allocation moves around but never changes.
import { formatNumber, formatTime } from "../format.js";
import { html } from "../html.js";
import { Legend, StackedBar } from "./bars.js";
import { Badge } from "./common.js";

/** @typedef {import("../types.js").PoolView} PoolView */
/** @typedef {import("../types.js").PoolBrand} PoolBrand */
/** @typedef {"projects" | "prompts"} Dimension */

/**
 * @param {PoolView} view
 * @param {Dimension} name
 */
export function poolSegments(view, name) {
  const pool = view.pool?.[name];
  let used = pool?.used ?? 0;
  let drafted = pool?.drafted ?? 0;
  let slack = 0;
  let stranded = 0;
  for (const brand of view.brands) {
    const dimension = brand[name];
    if (!dimension) continue;
    used += dimension.used;
    drafted += dimension.drafted;
    slack += dimension.free;
    stranded += brand.stranded?.[name] ?? 0;
  }
  return {
    segments: [
      { key: "used", label: "used", value: used },
      { key: "drafted", label: "drafted", value: drafted },
      { key: "allocated", label: "allocated to brands, unused", value: slack },
      { key: "free", label: "free in the pool", value: pool?.free ?? 0 },
    ],
    stranded,
    poolTotal: pool?.total ?? 0,
  };
}

/**
 * The parent's own AI metering (spec/allocation.md §13) as the view gives it, with when it was read.
 * @param {{ view: PoolView }} props
 */
export function MeteringFacts({ view }) {
  const { state, asOf } = view.metering;
  return html`<span data-field="metering">AI metering <${Badge} value=${state} />
    <span class="muted">${asOf ? `as of ${formatTime(asOf)}` : "not read yet"}</span></span>`;
}

/** @param {{ view: PoolView }} props */
export function PoolBars({ view }) {
  if (!view.pool && view.allocation !== "notNeeded") {
    return html`<p class="muted">This organisation has no parent workspace configured: there is no pool.</p>`;
  }
  if (view.allocation === "notNeeded") {
    // Not an exhausted pool: an unmetered parent refuses no write for quota, whatever its numbers.
    return html`<p class="note" data-field="allocation-not-needed">
      <strong>Allocation is not needed.</strong> This organisation's parent workspace does not meter AI
      (${view.metering.asOf ? `as of ${formatTime(view.metering.asOf)}` : "as last read"}): no write is
      refused for quota and nothing is allocated to brands. Units brands still hold were allocated
      while it metered; they cost nothing, and the sweep may release them.
    </p>`;
  }
  /** @type {Dimension[]} */
  const dimensions = ["projects", "prompts"];
  return html`<div class="pool-bars">
    ${dimensions.map((name) => {
      const { segments, stranded, poolTotal } = poolSegments(view, name);
      const capacity = segments.reduce((sum, segment) => sum + segment.value, 0);
      return html`<div class="pool-dimension" key=${name} data-dimension=${name}>
        <h3>${name === "projects" ? "Projects" : "Prompts"}</h3>
        <${StackedBar} label=${`Pool ${name}`} segments=${segments} />
        <${Legend} segments=${segments} />
        <p class="pool-facts">
          Pool total <strong data-field="pool-total">${formatNumber(poolTotal)}</strong> ·
          capacity with brands <strong data-field="capacity">${formatNumber(capacity)}</strong> ·
          stranded <strong data-field="stranded">${formatNumber(stranded)}</strong>
        </p>
      </div>`;
    })}
  </div>`;
}

/**
 * One brand's allocation per dimension: used, drafted and slack (allocated but unused).
 * @param {{ brand: PoolBrand | undefined }} props
 */
export function AllocationBars({ brand }) {
  if (!brand) return html`<span class="muted">no sub-workspace</span>`;
  if (brand.error || !brand.projects || !brand.prompts) {
    return html`<span class="muted">${brand.error === "forbidden" ? "not readable" : "unavailable"}</span>`;
  }
  /** @type {Array<[Dimension, import("../types.js").PoolDimension]>} */
  const rows = [
    ["projects", brand.projects],
    ["prompts", brand.prompts],
  ];
  return html`<div class="allocation">
    ${rows.map(
      ([name, dimension]) => html`<div class="allocation-row" key=${name}>
        <span class="allocation-name">${name}</span>
        <${StackedBar} compact label=${`${brand.name} ${name}`} total=${Math.max(dimension.total, dimension.used + dimension.drafted)}
          segments=${[
            { key: "used", label: "used", value: dimension.used },
            { key: "drafted", label: "drafted", value: dimension.drafted },
            { key: "allocated", label: "slack", value: dimension.free },
          ]} />
        <span class="allocation-numbers">${formatNumber(dimension.used + dimension.drafted)} / ${formatNumber(dimension.total)}</span>
      </div>`,
    )}
  </div>`;
}
