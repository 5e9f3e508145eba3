import type { AuditReport } from "../../operations/audit.ts";

export const AUDIT_FORMATS = ["table", "json", "csv"] as const;
export type AuditFormat = (typeof AUDIT_FORMATS)[number];

const num = (value: number | null | undefined) =>
  value === null || value === undefined ? "" : String(value);

/** One row per brand, then one per org total: the shape both table and csv share. */
function rows(report: AuditReport): string[][] {
  const header = [
    "org",
    "brand",
    "subWorkspace",
    "projectsTotal",
    "projectsUsed",
    "projectsDrafted",
    "projectsStranded",
    "promptsTotal",
    "promptsUsed",
    "promptsDrafted",
    "promptsStranded",
    "poolProjectsFree",
    "poolPromptsFree",
    "poolProjectsFreeAfterSweep",
    "poolPromptsFreeAfterSweep",
    "error",
  ];
  const out = [header];
  for (const org of report.orgs) {
    for (const brand of org.brands) {
      out.push([
        org.orgId,
        brand.brandId,
        brand.subWorkspaceId,
        num(brand.projects?.total),
        num(brand.projects?.used),
        num(brand.projects?.drafted),
        num(brand.stranded?.projects),
        num(brand.prompts?.total),
        num(brand.prompts?.used),
        num(brand.prompts?.drafted),
        num(brand.stranded?.prompts),
        "",
        "",
        "",
        "",
        brand.error ?? "",
      ]);
    }
    for (const orphan of org.orphans) {
      out.push([
        org.orgId,
        `(${orphan.state} ${orphan.kind}) ${orphan.name}`,
        orphan.kind === "project" ? `${orphan.workspaceId}/${orphan.id}` : orphan.id,
        num(orphan.units?.projects?.total),
        num(orphan.units?.projects?.used),
        num(orphan.units?.projects?.drafted),
        "",
        num(orphan.units?.prompts?.total),
        num(orphan.units?.prompts?.used),
        num(orphan.units?.prompts?.drafted),
        "",
        "",
        "",
        "",
        "",
        "",
      ]);
    }
    out.push([
      org.orgId,
      "(pool)",
      org.parentWorkspaceId,
      num(org.pool?.projects.total),
      num(org.pool?.projects.used),
      num(org.pool?.projects.drafted),
      String(org.strandedSum.projects),
      num(org.pool?.prompts.total),
      num(org.pool?.prompts.used),
      num(org.pool?.prompts.drafted),
      String(org.strandedSum.prompts),
      num(org.pool?.projects.free),
      num(org.pool?.prompts.free),
      num(org.poolFreeAfterSweep?.projects),
      num(org.poolFreeAfterSweep?.prompts),
      org.error ?? "",
    ]);
  }
  return out;
}

function csvCell(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function formatAudit(report: AuditReport, format: AuditFormat): string {
  if (format === "json") return `${JSON.stringify(report, null, 2)}\n`;
  const table = rows(report);
  if (format === "csv") return `${table.map((row) => row.map(csvCell).join(",")).join("\n")}\n`;
  if (report.orgs.length === 0) return "no org with a pool matched\n";
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return `${table
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
