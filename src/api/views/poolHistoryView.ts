import type { PoolHistoryPage, PoolSample, PoolSummary } from "../../poolView/poolHistory.ts";

function dimensionOf(dimension: PoolSample["projects"]) {
  return { used: dimension.used, drafted: dimension.drafted, total: dimension.total, free: dimension.free };
}

function sampleView(sample: PoolSample) {
  return {
    sampledAt: sample.sampledAt.toISOString(),
    projects: dimensionOf(sample.projects),
    prompts: dimensionOf(sample.prompts),
  };
}

export function poolHistoryView(page: PoolHistoryPage) {
  return {
    items: page.items.map(sampleView),
    since: page.since.toISOString(),
    retentionMs: page.retentionMs,
  };
}

export function poolSummariesView(summaries: PoolSummary[]) {
  return { items: summaries.map((summary) => ({ orgId: summary.orgId, ...sampleView(summary) })) };
}
