import { z } from "zod";

import { pageQueryFields } from "../paging.ts";
import { isoTimestamp, uuidParam } from "./common.ts";

export const poolDimension = z
  .object({
    used: z.number().int(),
    drafted: z.number().int(),
    total: z.number().int(),
    free: z.number().int(),
  })
  .meta({ id: "PoolDimension", description: "`free` = total − used − drafted, never negative." });

const units = z.object({ projects: z.number().int(), prompts: z.number().int() });

const AS_OF =
  "when Serenity learned these numbers (a resources read or a transfer's answer); entries older than SERENITY_POOL_VIEW_MAX_AGE_MS (30 s) are served as they are and refreshed in the background";

export const poolViewSchema = z
  .object({
    dynamicAllocation: z.boolean(),
    metering: z
      .object({
        state: z
          .enum(["metered", "unmetered", "unknown"])
          .describe(
            "whether the org's parent workspace meters AI (its `ai` product's limits_enabled); unknown: not read yet, or no read has succeeded (treated as metered)",
          ),
        asOf: isoTimestamp
          .nullable()
          .describe(
            "when the parent's metering was read (the pool sampler reads it every pass); null while unknown",
          ),
      })
      .describe("the parent's own AI metering (spec/allocation.md §13)"),
    allocation: z
      .enum(["justInTime", "notNeeded", "off"])
      .describe(
        "justInTime: SERENITY_DYNAMIC_ALLOCATION is on and the parent meters AI (or its metering is unknown); notNeeded: the parent does not meter AI — nothing is allocated and no write is refused for quota, whatever the pool shows (units brands still hold were allocated while it metered: harmless, the sweep may release them); off: the switch is off",
      ),
    pool: z
      .object({ projects: poolDimension, prompts: poolDimension, asOf: isoTimestamp.describe(AS_OF) })
      .nullable(),
    brands: z.array(
      z.object({
        brandId: z.string(),
        name: z.string(),
        subWorkspaceId: z.string(),
        projects: poolDimension.nullable(),
        prompts: poolDimension.nullable(),
        stranded: units.nullable().describe("total − roundUpToBlock(used + drafted) per dimension"),
        asOf: isoTimestamp.nullable().describe(`${AS_OF}; null when there is none (see error)`),
        error: z.enum(["forbidden", "unavailable"]).optional().describe("set when this brand's read failed"),
      }),
    ),
    unattached: z
      .array(
        z.object({
          subWorkspaceId: z.string(),
          title: z.string(),
          brandId: z.string().nullable().describe("the brand whose name it bears, e.g. a deactivated brand"),
          projects: poolDimension.nullable(),
          prompts: poolDimension.nullable(),
          asOf: isoTimestamp.nullable().describe(AS_OF),
          error: z.enum(["forbidden", "unavailable"]).optional(),
        }),
      )
      .describe(
        "sub-workspaces of the parent no brand points at (a deactivated brand's, kept at the floor 1 / 1; an orphan not reclaimed yet; another team's): pool.total + the brands' totals + these totals is the whole pool",
      ),
    sampledAt: isoTimestamp.describe(
      "when this view was put together from the resources record; each entry's age is its asOf",
    ),
  })
  .meta({ id: "PoolView" });

export const ledgerQuery = z.strictObject({
  brandId: uuidParam.optional(),
  ...pageQueryFields(),
  before: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, "must be a positive integer")
    .optional()
    .transform((value) => (value === undefined ? undefined : Number(value)))
    .meta({
      deprecated: true,
      description: "Deprecated: use `cursor`. An entry id to list entries older than.",
    }),
});

export const ledgerPageSchema = z
  .object({
    items: z.array(
      z.object({
        id: z.number().int().meta({
          description:
            "The entry's place in the org's append-only ledger: an integer that grows with time (not a UUID, ADR 0037); no route reads an entry by it",
        }),
        brandId: z.string().nullable(),
        subWorkspaceId: z.string(),
        reason: z
          .enum(["topUp", "exact", "rebalance", "release", "sweep", "deactivate", "reconcile"])
          .describe(
            "topUp: a block-rounded top-up; exact: the unrounded retry near exhaustion; rebalance: slack moved between sibling sub-workspaces (a row on each side); release, sweep, deactivate: surplus given back; reconcile: the upstream reconciler reclaiming an orphan (a release, or `projectDeleted` for an orphan project it deleted)",
          ),
        before: units.nullable(),
        after: units.nullable(),
        outcome: z
          .string()
          .describe(
            "applied | failed | rejected | notApplied | unknown (a lost answer, settled by a read or not) | projectDeleted (reconcile)",
          ),
        errorCode: z.string().nullable(),
        requestId: z.string().nullable(),
        createdAt: isoTimestamp,
      }),
    ),
    nextCursor: z
      .string()
      .nullable()
      .describe("Pass as `cursor` for the next (older) page; null on the last page"),
    nextBefore: z
      .number()
      .int()
      .nullable()
      .meta({ deprecated: true })
      .describe("Deprecated: use `nextCursor`. Pass as `before` for the next (older) page"),
  })
  .meta({ id: "AllocationLedgerPage" });
