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
 * After a metered-quota refusal, the project's model count read again when it came from the
 * remembered set (undefined when it was read upstream already). A refusal is also how upstream
 * says a remembered model set is stale: a model added behind our back makes every text cost more
 * than we counted. The caller recomputes what the creates still stage from it.
 */
export async function modelsAfterRefusal(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
): Promise<number | undefined> {
  if (!(prepared.modelsKnown && prepared.market)) return undefined;
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
  return modelIds.length;
}

/**
 * After a create failed: when a remembered tag id may be what upstream refused (an unknown tag is
 * a bare 500, nothing created), forgets the market's tag ids, resolves them upstream again, and
 * answers the fresh ids and whether an id of `batch` changed (then the batch is worth sending
 * again). Undefined when the failure is of another kind or the ids could not be resolved.
 */
export async function refreshStaleTags(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
  batch: ProjectPromptEntry[],
  error: unknown,
): Promise<{ tagIds: Map<string, string>; changed: boolean } | undefined> {
  const staleSignal =
    isGatewayError(error) && (error.status === 500 || error.status === 404 || error.kind === "badRequest");
  if (!prepared.tagsKnown || !staleSignal) return undefined;
  const idsOf = (tagIds: ReadonlyMap<string, string>) => batch[0]!.tags.map((tag) => tagIds.get(tagKey(tag)));
  const before = idsOf(prepared.tagIds);
  let tagIds: Map<string, string>;
  try {
    if (prepared.market) await forgetTags(deps.known!, prepared.market.marketId);
    const fresh = await resolveTagIds(deps.projects, prepared.ref, prepared.paths);
    if (prepared.market) await rememberTags(deps.known!, marketProject(prepared), fresh.learned);
    tagIds = fresh.ids;
  } catch (refreshError) {
    deps.logger.warn({ err: refreshError }, "could not resolve tags again after a failed create");
    return undefined;
  }
  const changed = idsOf(tagIds).some((id, index) => id !== before[index]);
  deps.logger.info(
    { changed, status: isGatewayError(error) ? error.status : undefined },
    "a create failed with remembered tag ids; resolved them again",
  );
  return { tagIds, changed };
}
