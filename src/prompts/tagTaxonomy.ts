import { rootKey, tagKey, type TagPath, TAXONOMY_ROOTS, type TaxonomyRoot } from "../domain/tagTaxonomy.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { ProjectRef } from "../markets/market.ts";

/**
 * Our taxonomy on the upstream's generic tag tree (src/domain/tagTaxonomy.ts). Creating a tag that
 * already exists is a 500 upstream, so a tag is always looked up before it is created; a create
 * that loses a race to a concurrent request is recovered by looking up again.
 */
export { rootKey, tagKey, type TagPath, TAXONOMY_ROOTS, type TaxonomyRoot };

/**
 * The tag ids of `paths`, keyed by `tagKey`, creating only the tags that are missing upstream.
 * `known` (ids Serenity resolved before, roots under `rootKey`) are used without asking upstream;
 * only what is not known is looked up — a root's children once for all its missing values. If a
 * known root id may have been stale (the look-up or create under it failed), the whole resolution
 * runs once more from upstream. `learned` holds every id read or created upstream (roots included), to remember.
 */
export async function resolveTagIds(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  paths: readonly TagPath[],
  known: ReadonlyMap<string, string> = new Map(),
): Promise<{ ids: Map<string, string>; learned: Map<string, string> }> {
  // A value not known under a root that is: its look-up and create go under the known root id.
  const underKnownRoot = paths.some((path) => !known.has(tagKey(path)) && known.has(rootKey(path.root)));
  try {
    return await resolveWith(projects, ref, paths, known);
  } catch (error) {
    if (!underKnownRoot) throw error;
    return resolveWith(projects, ref, paths, new Map());
  }
}

async function resolveWith(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  paths: readonly TagPath[],
  known: ReadonlyMap<string, string>,
): Promise<{ ids: Map<string, string>; learned: Map<string, string> }> {
  const ids = new Map<string, string>();
  const learned = new Map<string, string>();
  const missingByRoot = new Map<TaxonomyRoot, Set<string>>();
  for (const path of paths) {
    const id = known.get(tagKey(path));
    if (id !== undefined) ids.set(tagKey(path), id);
    else missingByRoot.set(path.root, (missingByRoot.get(path.root) ?? new Set<string>()).add(path.value));
  }
  if (missingByRoot.size === 0) return { ids, learned };
  const unknownRoots = [...missingByRoot.keys()].filter((root) => !known.has(rootKey(root)));
  const rootIds = new Map<string, string>();
  for (const root of missingByRoot.keys()) {
    const id = known.get(rootKey(root));
    if (id !== undefined) rootIds.set(root, id);
  }
  if (unknownRoots.length > 0) {
    for (const [name, id] of await ensureTags(projects, ref, undefined, unknownRoots)) {
      if (!(unknownRoots as string[]).includes(name)) continue;
      rootIds.set(name, id);
      learned.set(rootKey(name as TaxonomyRoot), id);
    }
  }
  await Promise.all(
    [...missingByRoot].map(async ([root, values]) => {
      const childIds = await ensureTags(projects, ref, rootIds.get(root)!, [...values]);
      for (const value of values) {
        const key = tagKey({ root, value });
        ids.set(key, childIds.get(value)!);
        learned.set(key, childIds.get(value)!);
      }
    }),
  );
  return { ids, learned };
}

/** Names → ids of one level of the tree (`parentId` undefined = roots), creating what is missing. */
async function ensureTags(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  parentId: string | undefined,
  names: readonly string[],
): Promise<Map<string, string>> {
  const lookUp = async () => {
    const tags = await projects.listTags(ref.bearer, ref.workspaceId, ref.projectId, {
      parentId,
      search: "",
    });
    // Roots are the entries without a parent; children are filtered by parent in case a peer
    // answers the whole tree.
    const level = tags.filter((tag) =>
      parentId === undefined ? tag.parentId === null : tag.parentId === parentId,
    );
    return new Map(level.map((tag) => [tag.name, tag.id]));
  };
  const known = await lookUp();
  const missing = names.filter((name) => !known.has(name));
  if (missing.length === 0) return known;
  try {
    const created = await projects.createTags(ref.bearer, ref.workspaceId, ref.projectId, {
      names: missing,
      parentId,
    });
    for (const tag of created) known.set(tag.name, tag.id);
  } catch (error) {
    // A concurrent request may have created them between our read and our create (upstream 500).
    const again = await lookUp();
    if (missing.some((name) => !again.has(name))) throw error;
    return again;
  }
  if (missing.some((name) => !known.has(name))) {
    // The create answered without echoing every tag: read the level back.
    return lookUp();
  }
  return known;
}

/**
 * The taxonomy part of the project's tag tree, keyed as `market_tags` keys it: each of our roots
 * (`origin`) and each value directly under one (`origin=human`), to their ids. Prompt listings name
 * a prompt's tags without their parent, so this is what names a tag's dimension: the roots, then the
 * children of each taxonomy root, in parallel (at most six reads). Callers read it only when
 * Serenity's record of it is missing a listed tag or is old (src/prompts/tagDimensions.ts).
 */
export async function readTaxonomyTags(
  projects: ProjectEngineClient,
  ref: ProjectRef,
): Promise<Map<string, string>> {
  const roots = (await projects.listTags(ref.bearer, ref.workspaceId, ref.projectId, { search: "" })).filter(
    (tag) => tag.parentId === null && (TAXONOMY_ROOTS as readonly string[]).includes(tag.name),
  );
  const keyed = new Map<string, string>();
  await Promise.all(
    roots.map(async (root) => {
      keyed.set(rootKey(root.name as TaxonomyRoot), root.id);
      const children = await projects.listTags(ref.bearer, ref.workspaceId, ref.projectId, {
        parentId: root.id,
        search: "",
      });
      for (const child of children) {
        if (child.parentId === root.id) {
          keyed.set(tagKey({ root: root.name as TaxonomyRoot, value: child.name }), child.id);
        }
      }
    }),
  );
  return keyed;
}
