import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import { publishedEntryText } from "../resourceObservations/foldedEntry.ts";
import { runPreparedText } from "../runPrepared.ts";
import { type LastPublish, lastPublishOf, type PublishRow } from "./findLastPublishes.ts";

/**
 * The sub-workspace entry's version and whether an announcement on it (a model add) is in flight,
 * its hold on the database's clock not yet over (docs/decisions/0046).
 */
export interface EntryVersion {
  version: number;
  announced: boolean;
}

/** What one attempt at a sub-workspace's lease answers: the lease, and its section's start. */
export interface SectionStart {
  taken: boolean;
  /**
   * No lease row stood when the statement began: what it read is as of the lease taken, not of a
   * snapshot a concurrent release (and its holder's last writes) committed after. Not fresh, the
   * section reads the last publish again once it holds the lease.
   */
  fresh: boolean;
  /** The statement's time on the database's clock: the section's resources read starts after it. */
  lockedAt: Date;
  lastPublish?: LastPublish;
  entry: EntryVersion;
}

interface Row extends PublishRow {
  taken: boolean;
  fresh: boolean;
  locked_at: Date | string;
  version: number;
  announced: boolean;
}

/**
 * Takes a sub-workspace's allocation lease in one statement — insert it, or take over a row whose
 * lease has expired (its holder crashed or stalled) — and answers, from the same statement, what
 * the section planning under it needs: the last publish (its window decided on the database's
 * clock, its bound, the loose flag) and the entry's version, from the workspace's entry of the
 * resources record (docs/decisions/0047). `taken: false` = someone else
 * holds a live lease, a lost race the caller waits on, never an exception; the version it read is
 * still older than the need reads the caller starts after it (allocationGuard.ts). Expiry is
 * set and compared on the database's clock, never the caller's (docs/decisions/0023).
 *
 * A named prepared statement (every guarded request runs it). Committed synchronously (unlike the
 * release): a lease acknowledged but lost in a database crash would let a second holder in while
 * the first still works under it.
 */
export async function acquireAllocationLock(
  db: DbExecutor,
  values: { subWorkspaceId: string; holder: string; now: DatabaseTime; ttlMs: number; publishLagMs: number },
): Promise<SectionStart> {
  const result = await runPreparedText<Row>(db, "acquire_allocation_lock", ACQUIRE, [
    values.subWorkspaceId,
    values.holder,
    values.now?.toISOString() ?? null,
    values.ttlMs,
    values.publishLagMs,
  ]);
  return sectionStartOf(result.rows[0]!);
}

/**
 * What the lease statement answers besides, read on its own under a lease already held (a lease
 * taken racing a release, or a lock provider that answers nothing).
 */
export async function readSectionStart(
  db: DbExecutor,
  subWorkspaceId: string,
  now: DatabaseTime,
  publishLagMs: number,
): Promise<SectionStart> {
  const result = await runPreparedText<Row>(db, "read_section_start", READ_START, [
    subWorkspaceId,
    now?.toISOString() ?? null,
    publishLagMs,
  ]);
  return sectionStartOf(result.rows[0]!);
}

/** `now` (the given time, else the database's clock, as databaseNow) from placeholder `$n`. */
const nowOf = (n: number) => `coalesce($${n}::timestamptz, date_trunc('milliseconds', clock_timestamp()))`;

/** The start's columns (and their FROM) for sub-workspace `$id`, at `$now`, with window `$lag` ms. */
const startColumns = (id: number, now: number, lag: number) => `${nowOf(now)} as locked_at,
  p.published_at, p.published_at > ${nowOf(now)} - $${lag}::double precision * interval '1 millisecond' as in_window,
  p.projects_used_bound, p.prompts_used_bound, p.projects_moved_in_window, p.prompts_moved_in_window,
  p.bound_loose,
  coalesce(p.version, 0) as version,
  coalesce(p.announced > 0 and p.announced_until > ${nowOf(now)}, false) as announced
  from (select 1) as one
  left join lateral ${publishedEntryText(`$${id}`)} p on true`;

/** $1 sub-workspace, $2 holder, $3 now, $4 TTL (ms), $5 publish lag (ms). */
const ACQUIRE = `
  with lease as (
    insert into allocation_locks as l (sub_workspace_id, holder, expires_at)
    values ($1, $2, ${nowOf(3)} + $4::double precision * interval '1 millisecond')
    on conflict (sub_workspace_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
    where l.expires_at < ${nowOf(3)}
    returning 1
  )
  select exists (select 1 from lease) as taken,
    not exists (select 1 from allocation_locks where sub_workspace_id = $1) as fresh,
    ${startColumns(1, 3, 5)}`;

/** $1 sub-workspace, $2 now, $3 publish lag (ms). */
const READ_START = `select true as taken, true as fresh, ${startColumns(1, 2, 3)}`;

function sectionStartOf(row: Row): SectionStart {
  return {
    taken: row.taken,
    fresh: row.fresh,
    lockedAt: new Date(row.locked_at),
    ...(row.published_at == null ? {} : { lastPublish: lastPublishOf(row) }),
    entry: { version: Number(row.version), announced: row.announced },
  };
}
