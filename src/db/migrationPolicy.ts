/**
 * The expand/contract policy of the migrations (docs/decisions/0032), as a classifier of a
 * migration's SQL. During a rolling deploy the previous release's processes run on the new schema,
 * so a migration must only expand it: add tables, columns, indexes and enum values that the old
 * code ignores, and backfill. Anything that takes away or changes what the old code reads or
 * writes is a contract step, shipped only once no process of the release before still runs, and
 * marked as such on its first line: `-- contract-step: <why it is safe now>`.
 */

/** The first line that marks a migration as a deliberate contract step, with its reason. */
export const CONTRACT_STEP_MARKER = /^--\s*contract-step:\s*(\S.*)$/;

/**
 * The migrations written before this policy existed, accepted as they are. Classified when the
 * policy was written, all are additive but `0005_org_parent_workspace_unique` (a unique constraint
 * on existing orgs: it could fail on old rows, and refuses an older writer's duplicate), which
 * shipped before rolling deploys were supported. The list is closed: a new migration is never
 * added to it.
 */
export const GRANDFATHERED_MIGRATIONS: readonly string[] = [
  "0000_initial",
  "0001_market_reservations",
  "0002_job_lineage_root",
  "0003_market_reservation_key",
  "0004_allocation_publishes",
  "0005_org_parent_workspace_unique",
  "0006_console_reads",
  "0007_market_upstream_facts",
  "0008_brand_leases",
  "0009_upstream_reconciler",
  "0010_resources_record",
  "0011_upstream_budget",
  "0012_idempotency_keys",
  "0013_orphan_quarantine",
];

export type MigrationVerdict =
  { kind: "additive" } | { kind: "contract"; reason: string } | { kind: "breaking"; violations: string[] };

/** Comments and the insides of string literals and dollar-quoted bodies removed (keywords in them are not SQL). */
function stripNonCode(sql: string): string {
  return sql
    .replace(/\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g, "$$$$")
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/--[^\n]*/g, " ");
}

function statementsOf(sql: string): string[] {
  return stripNonCode(sql)
    .split(/;/)
    .map((statement) => statement.replace(/\s+/g, " ").trim())
    .filter((statement) => statement.length > 0);
}

const IDENTIFIER = String.raw`(?:"[^"]+"|[A-Za-z_][\w$]*)`;
const QUALIFIED = String.raw`(?:${IDENTIFIER}\.)?${IDENTIFIER}`;

/** The table name without schema or quotes, lower-cased. */
function nameOf(identifier: string): string {
  const last = identifier.split(".").at(-1) ?? identifier;
  return last.replace(/"/g, "").toLowerCase();
}

function columnsIn(list: string): string[] {
  return list.split(",").map((column) => nameOf(column.trim()));
}

interface Scope {
  /** Tables this migration creates: nothing the old code reads, so anything goes on them. */
  newTables: Set<string>;
  /** `table.column` pairs this migration adds. */
  newColumns: Set<string>;
  /** `table.column` pairs this migration gives a default. */
  defaulted: Set<string>;
}

/**
 * Whether a uniqueness over `columns` leaves older writers alone: the table is new, or one of the
 * columns is new without a default, so every row an older writer makes holds NULL there (NULLs
 * never collide) and no existing row is compared.
 */
function uniqueLeavesOldWritersAlone(scope: Scope, table: string, columns: string[]): boolean {
  return (
    scope.newTables.has(table) ||
    columns.some(
      (column) => scope.newColumns.has(`${table}.${column}`) && !scope.defaulted.has(`${table}.${column}`),
    )
  );
}

function collectScope(statements: string[]): Scope {
  const scope: Scope = { newTables: new Set(), newColumns: new Set(), defaulted: new Set() };
  for (const statement of statements) {
    const created = new RegExp(
      String.raw`^CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?(${QUALIFIED})`,
      "i",
    ).exec(statement);
    if (created) scope.newTables.add(nameOf(created[1]!));
    const altered = new RegExp(
      String.raw`^ALTER TABLE (?:ONLY )?(?:IF EXISTS )?(${QUALIFIED}) (.*)$`,
      "i",
    ).exec(statement);
    if (!altered) continue;
    const table = nameOf(altered[1]!);
    for (const action of altered[2]!.split(/,(?![^(]*\))/)) {
      const added = new RegExp(
        String.raw`^\s*ADD (?:COLUMN )?(?:IF NOT EXISTS )?(${IDENTIFIER}) (.*)$`,
        "i",
      ).exec(action);
      if (added && !/^(?:CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)$/i.test(added[1]!)) {
        scope.newColumns.add(`${table}.${nameOf(added[1]!)}`);
        if (/\bDEFAULT\b/i.test(added[2]!)) scope.defaulted.add(`${table}.${nameOf(added[1]!)}`);
      }
      const defaulted = new RegExp(String.raw`^\s*ALTER (?:COLUMN )?(${IDENTIFIER}) SET DEFAULT\b`, "i").exec(
        action,
      );
      if (defaulted) scope.defaulted.add(`${table}.${nameOf(defaulted[1]!)}`);
    }
  }
  return scope;
}

/** What in one `ALTER TABLE` action breaks the previous release, if anything. */
function alterTableViolation(scope: Scope, table: string, action: string): string | undefined {
  const text = action.trim();
  if (/^DROP\b/i.test(text)) return `drops from ${table}: ${text}`;
  if (/^RENAME\b/i.test(text)) return `renames in ${table}: ${text}`;
  const column = new RegExp(String.raw`^ALTER (?:COLUMN )?(${IDENTIFIER}) (.*)$`, "i").exec(text);
  if (column) {
    const name = nameOf(column[1]!);
    const change = column[2]!;
    const key = `${table}.${name}`;
    if (/^(?:SET DATA )?TYPE\b/i.test(change)) return `changes the type of ${key}`;
    if (/^DROP DEFAULT\b/i.test(change)) return `drops the default of ${key} (older writers may rely on it)`;
    if (/^SET NOT NULL\b/i.test(change) && !scope.newColumns.has(key) && !scope.defaulted.has(key)) {
      return `sets ${key} NOT NULL without a default (older writers that leave it out would fail)`;
    }
    return undefined;
  }
  const added = new RegExp(String.raw`^ADD (?:COLUMN )?(?:IF NOT EXISTS )?(${IDENTIFIER}) (.*)$`, "i").exec(
    text,
  );
  if (added && !/^(?:CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)$/i.test(added[1]!)) {
    const definition = added[2]!;
    if (
      /\bNOT NULL\b/i.test(definition) &&
      !/\bDEFAULT\b/i.test(definition) &&
      !/\bGENERATED\b/i.test(definition)
    ) {
      return `adds ${table}.${nameOf(added[1]!)} NOT NULL without a default (older writers that leave it out would fail)`;
    }
    return undefined;
  }
  const constraint = /^ADD (?:CONSTRAINT \S+ )?(UNIQUE|PRIMARY KEY|CHECK|EXCLUDE)\b\s*(?:\(([^)]*)\))?/i.exec(
    text,
  );
  if (constraint) {
    const kind = constraint[1]!.toUpperCase();
    if (
      kind !== "CHECK" &&
      kind !== "EXCLUDE" &&
      constraint[2] &&
      uniqueLeavesOldWritersAlone(scope, table, columnsIn(constraint[2]))
    ) {
      return undefined;
    }
    return `adds a ${kind} constraint on existing data of ${table} (it can fail on old rows or refuse older writers)`;
  }
  return undefined;
}

function statementViolations(scope: Scope, statement: string): string[] {
  const altered = new RegExp(
    String.raw`^ALTER TABLE (?:ONLY )?(?:IF EXISTS )?(${QUALIFIED}) (.*)$`,
    "i",
  ).exec(statement);
  if (altered) {
    const table = nameOf(altered[1]!);
    if (scope.newTables.has(table)) return [];
    return altered[2]!
      .split(/,(?![^(]*\))/)
      .map((action) => alterTableViolation(scope, table, action))
      .filter((violation): violation is string => violation !== undefined);
  }
  if (/^DROP\b/i.test(statement)) return [`drops: ${statement}`];
  if (/^TRUNCATE\b/i.test(statement)) return [`empties a table: ${statement}`];
  if (/^DELETE\b/i.test(statement)) return [`deletes rows: ${statement}`];
  if (/^ALTER\b.* RENAME\b/i.test(statement)) return [`renames: ${statement}`];
  if (/^ALTER TYPE\b/i.test(statement) && !/^ALTER TYPE \S+ ADD VALUE\b/i.test(statement)) {
    return [`changes a type: ${statement}`];
  }
  const uniqueIndex = new RegExp(
    String.raw`^CREATE UNIQUE INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(?:${IDENTIFIER} )?ON (?:ONLY )?(${QUALIFIED})(?: USING \w+)? ?\(([^)]*)\)`,
    "i",
  ).exec(statement);
  if (uniqueIndex) {
    const table = nameOf(uniqueIndex[1]!);
    const columns = columnsIn(uniqueIndex[2]!).map((column) => column.split(" ")[0]!);
    if (!uniqueLeavesOldWritersAlone(scope, table, columns)) {
      return [
        `adds a unique index on existing data of ${table} (it can fail on old rows or refuse older writers)`,
      ];
    }
  }
  return [];
}

/** Classifies one migration's SQL under the expand/contract policy. */
export function classifyMigration(sql: string): MigrationVerdict {
  const firstLine = sql.split("\n", 1)[0]!.trim();
  const marker = CONTRACT_STEP_MARKER.exec(firstLine);
  if (marker) return { kind: "contract", reason: marker[1]!.trim() };
  const statements = statementsOf(sql);
  const scope = collectScope(statements);
  const violations = statements.flatMap((statement) => statementViolations(scope, statement));
  return violations.length === 0 ? { kind: "additive" } : { kind: "breaking", violations };
}
