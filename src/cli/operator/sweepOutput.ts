import cliProgress from "cli-progress";

import type { SweepItem, SweepProgress, SweepReport } from "../../operations/sweep.ts";
import { SWEEP_OUTCOMES } from "../../operations/sweep.ts";

/** How the sweep shows progress: a bar on a terminal, plain periodic lines otherwise (stderr). */
export interface SweepProgressDisplay {
  start(total: number): void;
  item(item: SweepItem, progress: SweepProgress): void;
  stop(): void;
}

export function sweepProgressDisplay(stream: NodeJS.WriteStream): SweepProgressDisplay {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format:
          "sweep [{bar}] {value}/{total} | released {projects} projects, {prompts} prompts | errors {errors} | ETA {eta_formatted}",
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    return {
      start: (total) => bar.start(total, 0, { projects: 0, prompts: 0, errors: 0 }),
      item: (_item, progress) =>
        bar.update(progress.index, {
          projects: progress.returned.projects,
          prompts: progress.returned.prompts,
          errors: progress.errors,
        }),
      stop: () => bar.stop(),
    };
  }
  let every = 1;
  return {
    start(total) {
      every = Math.max(1, Math.floor(total / 20));
      stream.write(`sweep: ${total} sub-workspace(s) to visit\n`);
    },
    item(item, progress) {
      if (progress.index % every !== 0 && progress.index !== progress.total && item.outcome !== "error")
        return;
      const detail = item.outcome === "error" ? ` (brand ${item.brandId}: ${item.errorCode})` : "";
      stream.write(
        `sweep: ${progress.index}/${progress.total} released ${progress.returned.projects} projects, ` +
          `${progress.returned.prompts} prompts, errors ${progress.errors}${detail}\n`,
      );
    },
    stop() {},
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** The end-of-run summary: counts per outcome, units returned per pool, and why it failed if it did. */
export function formatSweepSummary(report: SweepReport): string {
  const lines: string[] = [];
  lines.push(report.dryRun ? "Sweep (dry run: nothing was changed)" : "Sweep");
  lines.push("");
  lines.push(
    table([
      ["outcome", "count"],
      ...SWEEP_OUTCOMES.map((outcome) => [outcome, String(report.counts[outcome])]),
    ]),
  );
  lines.push("");
  const pools = Object.entries(report.returnedByPool);
  const returned = report.dryRun ? "would return" : "returned";
  lines.push(
    pools.length === 0
      ? `units ${returned}: none`
      : table([
          ["pool (parent workspace)", `projects ${returned}`, `prompts ${returned}`],
          ...pools.map(([pool, units]) => [pool, String(units.projects), String(units.prompts)]),
        ]),
  );
  const errors = report.items.filter((item) => item.outcome === "error");
  if (errors.length > 0) {
    lines.push("");
    lines.push(
      table([
        ["brand", "sub-workspace", "error", "expected"],
        ...errors.map((item) => [
          item.brandId,
          item.subWorkspaceId,
          item.errorCode ?? "unexpected",
          item.expected ? "yes" : "no",
        ]),
      ]),
    );
  }
  lines.push("");
  lines.push(
    `skipped from checkpoint: ${report.skipped.done} done, ${report.skipped.failed} failed (use --retry-failed)`,
  );
  if (report.aborted) {
    lines.push(
      `ABORTED after consecutive unexpected errors; ${report.notVisited} sub-workspace(s) not visited`,
    );
  }
  if (!report.dryRun) lines.push(`checkpoint: ${report.checkpointFile}`);
  return `${lines.join("\n")}\n`;
}
