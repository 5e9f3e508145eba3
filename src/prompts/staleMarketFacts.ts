import type { Need } from "../domain/allocation.ts";
import { isGatewayError } from "../gateway/errors.ts";
import { forgetModels, readAndRememberModels } from "../markets/knownModels.ts";
import { forgetTags, rememberTags } from "./knownTags.ts";
import {
  marketProject,
  type PreparedProjectPrompts,
  type ProjectPromptEntry,
  type ProjectPromptsDeps,
} from "./projectPrompts.ts";
import { resolveTagIds, tagKey } from "./tagTaxonomy.ts";

/**
 * What the creates still stage, asked after a metered-quota refusal (spec/allocation.md §6). A
 * refusal is also how upstream says a remembered model set is stale (a model added behind our
 * back makes every text cost more than we counted): the set is read again first.
 */
export async function stagesAfterRefusal(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
): Promise<Need> {
  if (prepared.modelsKnown && prepared.market) {
    // Forgotten first: what upstream reads now replaces it, whatever its time stamp says.
    await forgetModels(deps.known!, prepared.market.marketId).catch((error: unknown) =>
      deps.logger.warn({ err: error }, "could not forget a market's models"),
    );
    const modelIds = await readAndRememberModels(
      deps.known!,
      deps.projects,
      prepared.ref.bearer,
      marketProject(prepared),
    );
    prepared.models = modelIds.length;
    prepared.modelsKnown = false;
  }
  const left = prepared.fresh.filter((entry) => !prepared.outcomes.has(entry.text)).length;
  return { prompts: left * prepared.models };
}

/**
 * After a create failed: when a remembered tag id may be what upstream refused (an unknown tag is
 * a bare 500, nothing created), forgets the market's tag ids, resolves them upstream again, and
 * answers whether an id of `batch` changed (then the batch is worth sending again). Any other
 * failure, or one where the ids are still the same, is left to the caller.
 */
export async function refreshStaleTags(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
  batch: ProjectPromptEntry[],
  error: unknown,
): Promise<boolean> {
  const staleSignal =
    isGatewayError(error) && (error.status === 500 || error.status === 404 || error.kind === "badRequest");
  if (!prepared.tagsKnown || !staleSignal) return false;
  const idsOf = () => batch[0]!.tags.map((tag) => prepared.tagIds.get(tagKey(tag)));
  const before = idsOf();
  try {
    if (prepared.market) await forgetTags(deps.known!, prepared.market.marketId);
    const fresh = await resolveTagIds(deps.projects, prepared.ref, prepared.paths);
    if (prepared.market) await rememberTags(deps.known!, marketProject(prepared), fresh.learned);
    prepared.tagIds = fresh.ids;
    prepared.tagsKnown = false;
  } catch (refreshError) {
    deps.logger.warn({ err: refreshError }, "could not resolve tags again after a failed create");
    return false;
  }
  const changed = idsOf().some((id, index) => id !== before[index]);
  deps.logger.info(
    { changed, status: isGatewayError(error) ? error.status : undefined },
    "a create failed with remembered tag ids; resolved them again",
  );
  return changed;
}
