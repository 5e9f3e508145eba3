import { sql } from "drizzle-orm";

import type { Dimension } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  type AnnouncedEntry,
  AT,
  atPlus,
  clockCte,
  type EntryColumn,
  entryOf,
  upsertEntry,
} from "./foldedEntry.ts";

/**
 * A call others must not miss is about to be sent (src/allocation/announced.ts): a model add, on
 * the sub-workspace's entry; a lowering, on the org's parent's, which also raises each bound still
 * known by the units it returns (`raising`: as if it will apply; if it does not, the bound only says
 * more is free than is, the safe direction). The entry's version moves on and one more call is in
 * flight until `endAnnouncement`, or until `holdMs` from now on the database's clock when that end
 * is never written: the count then starts again from one. One statement, the entry made "not read"
 * when there is none.
 */
export async function beginAnnouncement(
  db: DbExecutor,
  on: AnnouncedEntry,
  hold: { now: DatabaseTime; holdMs: number },
  raising: Partial<Record<Dimension, number>> = {},
): Promise<void> {
  const raised = Object.entries(raising).map(([dimension, units]): EntryColumn => {
    const name = dimension === "projects" ? "projects_free_below" : "prompts_free_below";
    return { name, value: sql`null::integer`, set: sql`r.${sql.raw(name)} + ${units}::integer` };
  });
  const begins: EntryColumn[] = [
    { name: "version", value: sql`1`, set: sql`r.version + 1` },
    {
      name: "announced",
      value: sql`1`,
      set: sql`case when r.announced_until > ${AT} then r.announced + 1 else 1 end`,
    },
    {
      name: "announced_until",
      value: atPlus(hold.holdMs),
      set: sql`greatest(r.announced_until, ${atPlus(hold.holdMs)})`,
    },
  ];
  await db.execute(sql`
    with ${clockCte(hold.now)}
    ${upsertEntry(entryOf(on), [...begins, ...raised])}
  `);
}
