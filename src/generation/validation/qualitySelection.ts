import type { PromptCategory } from "../wire.ts";

/**
 * Stage 4 of the pipeline (spec/generation.md §7): ranks the valid candidates and keeps at most
 * `numPrompts` of them so that the kept set
 * - prefers prompts grounded in a seed topic (ungrounded ones rank last);
 * - spreads over the seed topics, highest volume first (round-robin over topics), at most
 *   `ceil(numPrompts / 5)` per topic;
 * - follows INTENT_MIX_TARGET as closely as the candidates allow, never a category above half;
 * - names the brand (or an alias) in 10–30 % of the prompts (at least one when the set is tiny,
 *   since 10–30 % of fewer than four prompts is not a whole prompt).
 * Shares are taken of the set actually kept: when fewer than `numPrompts` can be kept, the limits
 * are recomputed for that smaller size until they agree. Pure and deterministic.
 */

/** Documented target intent mix (ADR 0010): a monitoring set is mostly buying questions. */
export const INTENT_MIX_TARGET: Readonly<Record<PromptCategory, number>> = {
  comparative: 0.35,
  solution: 0.35,
  task: 0.15,
  informational: 0.1,
  pain_point: 0.05,
};

/** The branded share: at least `min`, aiming at `target` first, never above `max`. */
export const BRANDED_SHARE = { min: 0.1, target: 0.2, max: 0.3 } as const;

export interface QualityCandidate {
  category: PromptCategory;
  /** The seed topic the prompt is grounded in, null when ungrounded. */
  topic: string | null;
  /** Position of `topic` among the seeds by volume, descending (0 = highest volume). */
  topicRank: number;
  branded: boolean;
}

/** Largest-remainder apportionment of `size` slots over the target mix (ties: the mix's order). */
export function intentQuotas(size: number): Record<PromptCategory, number> {
  const entries = Object.entries(INTENT_MIX_TARGET) as [PromptCategory, number][];
  const quotas = Object.fromEntries(entries.map(([category, share]) => [category, Math.floor(share * size)]));
  let left = size - entries.reduce((sum, [category]) => sum + quotas[category]!, 0);
  const byRemainder = entries
    .map(([category, share], index) => ({ category, remainder: share * size - quotas[category]!, index }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { category } of byRemainder) {
    if (left === 0) break;
    quotas[category]! += 1;
    left -= 1;
  }
  return quotas as Record<PromptCategory, number>;
}

export function perTopicCap(numPrompts: number): number {
  return Math.ceil(numPrompts / 5);
}

export function brandedLimits(size: number): { min: number; target: number; max: number } {
  const min = Math.ceil(BRANDED_SHARE.min * size - 1e-9);
  const max = Math.max(min, 1, Math.floor(BRANDED_SHARE.max * size + 1e-9));
  return { min, target: Math.min(max, Math.max(min, Math.round(BRANDED_SHARE.target * size))), max };
}

/** Grounded first; within them one per topic per round, highest volume first; then input order. */
export function rankCandidates<T extends QualityCandidate>(candidates: readonly T[]): T[] {
  const seenPerTopic = new Map<string, number>();
  const keyed = candidates.map((candidate, index) => {
    const round = candidate.topic === null ? 0 : (seenPerTopic.get(candidate.topic) ?? 0);
    if (candidate.topic !== null) seenPerTopic.set(candidate.topic, round + 1);
    return { candidate, index, round };
  });
  keyed.sort((a, b) => {
    const groundedA = a.candidate.topic === null ? 1 : 0;
    const groundedB = b.candidate.topic === null ? 1 : 0;
    return (
      groundedA - groundedB ||
      a.round - b.round ||
      a.candidate.topicRank - b.candidate.topicRank ||
      a.index - b.index
    );
  });
  return keyed.map(({ candidate }) => candidate);
}

function selectForSize<T extends QualityCandidate>(
  ranked: readonly T[],
  size: number,
  topicCap: number,
): T[] {
  const quotas = intentQuotas(size);
  const half = Math.max(1, Math.floor(size / 2));
  const branded = brandedLimits(size);
  const taken = new Set<number>();
  const perCategory = new Map<PromptCategory, number>();
  const perTopic = new Map<string, number>();
  let brandedCount = 0;

  const topicFull = (c: T) => c.topic !== null && (perTopic.get(c.topic) ?? 0) >= topicCap;
  const take = (c: T, index: number) => {
    taken.add(index);
    perCategory.set(c.category, (perCategory.get(c.category) ?? 0) + 1);
    if (c.topic !== null) perTopic.set(c.topic, (perTopic.get(c.topic) ?? 0) + 1);
    if (c.branded) brandedCount += 1;
  };
  const pass = (accepts: (c: T) => boolean) => {
    ranked.forEach((candidate, index) => {
      if (taken.size >= size || taken.has(index) || topicFull(candidate) || !accepts(candidate)) return;
      take(candidate, index);
    });
  };
  const underQuota = (c: T) => (perCategory.get(c.category) ?? 0) < quotas[c.category];
  const underHalf = (c: T) => (perCategory.get(c.category) ?? 0) < half;
  const brandedRoom = (limit: number) => (c: T) => !c.branded || brandedCount < limit;

  // 1. The branded floor first, in the target mix; 2. the target mix and branded share, keeping
  // room for the floor; 3. whatever still fits with no category above half, up to the branded cap.
  pass((c) => c.branded && brandedCount < branded.min && underQuota(c));
  pass(
    (c) =>
      underQuota(c) &&
      brandedRoom(branded.target)(c) &&
      (c.branded || taken.size - brandedCount < size - branded.min),
  );
  pass((c) => underHalf(c) && brandedRoom(branded.max)(c));
  return ranked.filter((_, index) => taken.has(index));
}

/** The kept prompts, in rank order. */
export function selectByQuality<T extends QualityCandidate>(
  candidates: readonly T[],
  numPrompts: number,
): T[] {
  const ranked = rankCandidates(candidates);
  const topicCap = perTopicCap(numPrompts);
  let size = Math.min(numPrompts, ranked.length);
  let kept = selectForSize(ranked, size, topicCap);
  // Fewer fit than asked for: recompute the shares for the size that fits, until they agree.
  for (let round = 0; round < 8 && kept.length < size; round += 1) {
    size = kept.length;
    kept = selectForSize(ranked, size, topicCap);
  }
  return kept;
}
