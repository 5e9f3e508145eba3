/**
 * The layers of `src/`, written once: `npm run lint` enforces them (with zero import cycles), and
 * README "Where things are" lists the folders in this order.
 *
 * From the ground up. A file may import the files of its own folder and those of any folder on a
 * LOWER layer — never a folder of its own layer, never one above. A folder that is on no layer
 * fails the check until it is given one, so every new folder is placed on purpose.
 */
export const LAYERS = [
  ["config", "domain", "concurrency"], // boot settings and per-use flags; pure rules and types; generic async helpers
  ["observability", "auth"], // logs, events, metrics; principals and tokens
  ["db", "gateway", "simulator"], // one module per guarded SQL operation; the upstream client; its stand-in
  ["credentials", "orgs", "budget", "locks", "settings"], // sealed upstream credentials; tenants and tenancy; the shared upstream budget; reentrant locks, row leases, the brand lease; operator settings
  ["brands", "catalogues", "idempotency"], // brand records, brand tenancy and views; the upstream catalogues; Idempotency-Key records
  ["jobs", "allocation"], // the job system; just-in-time allocation
  ["subWorkspaces", "poolView"], // a brand's sub-workspace: the provisioning state machine, its job, its hop; the pool view (what the pool holds, read side of allocation)
  ["markets"], // markets, their projects and models; market create (sync, async, chained)
  ["prompts"], // prompts of a brand's markets
  ["generation"], // generated monitoring prompts (producer, job)
  ["brandLifecycle"], // a brand's lifecycle: create with its first market, activate, deactivate (sync and async)
  ["operations"], // operator runs: sweep, audit
  ["api"], // the HTTP layer
  ["runtime"], // the composition root
  ["cli"], // the `serenity` command
];

const alternatives = (folders) => `(${folders.join("|")})`;
const placed = LAYERS.flat();

/** For each folder: every folder on its own layer or above, itself excepted. */
const notBelow = (layer, folder) =>
  LAYERS.slice(layer)
    .flat()
    .filter((other) => other !== folder);

export default {
  forbidden: [
    {
      name: "no-cycle",
      comment: "Files that import each other in a loop, directly or through others.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    ...LAYERS.flatMap((folders, layer) =>
      folders.map((folder) => ({
        name: `layer:${folder}`,
        comment: `src/${folder}/ may only import folders on a lower layer (.dependency-cruiser.mjs LAYERS).`,
        severity: "error",
        from: { path: `^src/${folder}/` },
        to: { path: `^src/${alternatives(notBelow(layer, folder))}/` },
      })),
    ),
    {
      name: "jobs:records",
      comment:
        "A job record is created and read through src/jobs/ (jobRecords.ts, JobService), never by a feature's own SQL.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(jobs|db)/" },
      to: { path: "^src/db/jobs/" },
    },
    {
      name: "layer:unplaced",
      comment: "Every folder of src/ is on a layer: add a new one to LAYERS in .dependency-cruiser.mjs.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: `^src/(?!${alternatives(placed)}/)` },
    },
  ],
  options: {
    // Type-only imports count: a cycle of types is still a cycle of ideas.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/db/migrations/" },
  },
};
