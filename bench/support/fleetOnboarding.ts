/**
 * Onboards the fleet through the public API and its jobs, many orgs at once: each org is its own
 * upstream account (its user's bearer), so orgs onboard in parallel, each within its own budget.
 * Per org: a parent in the simulator, the org (admin), its brands created asynchronously with a US
 * market, then their extra markets (asynchronously, one at a time per brand: a brand's structural
 * operations take turns), then one bulk prompt write per brand (items the upstream budget could not
 * fit are written again, a few times, after their Retry-After).
 */
import type { OrgPlan } from "./fleetPlan.ts";
import { sleep } from "./fleetProcesses.ts";
import type { ApiCall } from "./fleetTraffic.ts";

export interface OnboardedOrg {
  plan: OrgPlan;
  id: string;
  token: string;
  parentId: string;
  /** Brands whose create completed (their US market is ready). */
  brands: string[];
  failures: string[];
  promptsWritten: number;
}

export interface OnboardingDeps {
  call: ApiCall;
  adminToken: string;
  tokenFor: (orgIndex: number, orgId: string) => Promise<string>;
  createParent: (plan: OrgPlan) => Promise<string>;
  /** Every job of one org polled at this spacing. */
  pollMs?: number;
  jobTimeoutMs?: number;
}

async function waitForJob(
  deps: OnboardingDeps,
  token: string,
  path: string,
): Promise<{ status: string; error: string }> {
  const deadline = Date.now() + (deps.jobTimeoutMs ?? 20 * 60_000);
  for (;;) {
    await sleep(deps.pollMs ?? 2_000);
    const answer = await deps.call("GET", path, token);
    if (answer.status === 200) {
      const body = JSON.parse(answer.text) as { status: string; error?: unknown };
      if (body.status !== "IN_PROGRESS")
        return { status: body.status, error: JSON.stringify(body.error ?? null) };
    }
    if (Date.now() > deadline) return { status: "TIMEOUT", error: "" };
  }
}

export async function onboardOrg(deps: OnboardingDeps, plan: OrgPlan): Promise<OnboardedOrg> {
  const { call } = deps;
  const parentId = await deps.createParent(plan);
  const created = await call("POST", "/v2/orgs", deps.adminToken, {
    name: `Fleet org ${plan.index + 1}`,
    parentWorkspaceId: parentId,
  });
  if (created.status !== 201) throw new Error(`create org ${plan.index}: ${created.status} ${created.text}`);
  const id = (JSON.parse(created.text) as { id: string }).id;
  const token = await deps.tokenFor(plan.index, id);
  const org: OnboardedOrg = { plan, id, token, parentId, brands: [], failures: [], promptsWritten: 0 };
  const base = `/v2/orgs/${id}/brands`;

  await Promise.all(
    plan.brands.map(async (brandPlan, b) => {
      const name = `Fleet ${plan.index + 1}-${b + 1}`;
      const answer = await call("POST", base, token, {
        name,
        domain: `fleet-${plan.index + 1}-${b + 1}.example`,
        semrushMarket: { market: "US", languageCode: "en" },
        async: true,
      });
      if (answer.status !== 202) {
        org.failures.push(`brand ${name}: ${answer.status} ${answer.text.slice(0, 120)}`);
        return;
      }
      const { id: brandId, jobId } = JSON.parse(answer.text) as { id: string; jobId: string };
      const job = await waitForJob(deps, token, `${base}/${brandId}/serenity/jobs/${jobId}`);
      if (job.status !== "COMPLETED") {
        org.failures.push(`brand ${name}: ${job.status} ${job.error.slice(0, 120)}`);
        return;
      }
      org.brands.push(brandId);
      for (const market of brandPlan.markets.slice(1)) {
        const marketAnswer = await call("POST", `${base}/${brandId}/serenity/markets`, token, {
          market: market.market,
          languageCode: market.languageCode,
          async: true,
        });
        if (marketAnswer.status !== 202) {
          org.failures.push(`market ${name} ${market.market}: ${marketAnswer.status}`);
          continue;
        }
        const { jobId: marketJob } = JSON.parse(marketAnswer.text) as { jobId: string };
        const done = await waitForJob(deps, token, `${base}/${brandId}/serenity/jobs/${marketJob}`);
        if (done.status !== "COMPLETED")
          org.failures.push(`market ${name} ${market.market}: ${done.status} ${done.error.slice(0, 120)}`);
      }
      // Awaited first, then added: `x += await …` would add to a value read before the wait.
      const written = await writePrompts(deps, token, `${base}/${brandId}/serenity/prompts`, {
        count: brandPlan.prompts,
        label: `${plan.index + 1}-${b + 1}`,
        failures: org.failures,
      });
      org.promptsWritten += written;
    }),
  );
  return org;
}

type Item = { index: number; status: number; error?: { code: string } };

/** One bulk write, then the items answered `upstreamBusy` again (up to 4 rounds). */
async function writePrompts(
  deps: OnboardingDeps,
  token: string,
  path: string,
  input: { count: number; label: string; failures: string[] },
): Promise<number> {
  let pending = Array.from(
    { length: input.count },
    (_, i) => `What does fleet brand ${input.label} do best, ${i + 1}?`,
  );
  let written = 0;
  for (let round = 0; round < 5 && pending.length > 0; round += 1) {
    if (round > 0) await sleep(2_000 * round);
    const answer = await deps.call("POST", path, token, {
      items: pending.map((text) => ({ text, geoTargetId: 2840, languageCode: "en" })),
    });
    let items: Item[] | undefined;
    try {
      items = (JSON.parse(answer.text) as { items?: Item[] }).items;
    } catch {
      items = undefined;
    }
    if (!items) {
      if (answer.status !== 503 && answer.status !== 429) {
        input.failures.push(`prompts ${input.label}: ${answer.status} ${answer.text.slice(0, 120)}`);
        return written;
      }
      continue;
    }
    const retry: string[] = [];
    for (const item of items) {
      if (item.status === 200 || item.status === 201) written += 1;
      else if (item.error?.code === "upstreamBusy") retry.push(pending[item.index]!);
      else input.failures.push(`prompt ${input.label}: ${item.status} ${item.error?.code ?? ""}`);
    }
    pending = retry;
  }
  if (pending.length > 0) input.failures.push(`prompts ${input.label}: ${pending.length} still busy`);
  return written;
}

/** Runs `work` over `items` with at most `limit` at once, in order of start. */
export async function inParallel<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}
