import cliProgress from "cli-progress";

import type { ResealOutcome, ResealReport } from "../../credentials/resealCredentials.ts";

/** How a reseal shows progress: a bar on a terminal, plain periodic lines otherwise (stderr). */
export interface ResealProgressDisplay {
  start(total: number): void;
  item(outcome: ResealOutcome, report: ResealReport): void;
  stop(): void;
}

function visited(report: ResealReport): number {
  return report.resealed + report.current + report.unreadable + report.changed;
}

export function resealProgressDisplay(stream: NodeJS.WriteStream): ResealProgressDisplay {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format:
          "reseal [{bar}] {value}/{total} | resealed {resealed} | unreadable {unreadable} | ETA {eta_formatted}",
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let total = 0;
    return {
      start: (count) => {
        total = count;
        bar.start(count, 0, { resealed: 0, unreadable: 0 });
      },
      item: (_outcome, report) => {
        // Credentials sealed while the run goes on can add to what it visits.
        if (visited(report) > total) bar.setTotal((total = visited(report)));
        bar.update(visited(report), { resealed: report.resealed, unreadable: report.unreadable });
      },
      stop: () => bar.stop(),
    };
  }
  let every = 1;
  return {
    start(total) {
      every = Math.max(1, Math.floor(total / 20));
      stream.write(`reseal: ${total} sealed credential(s) to visit\n`);
    },
    item(outcome, report) {
      const index = visited(report);
      if (index % every !== 0 && index !== report.total && outcome !== "unreadable") return;
      stream.write(
        `reseal: ${index}/${report.total} resealed ${report.resealed}, already current ${report.current}, ` +
          `unreadable ${report.unreadable}\n`,
      );
    },
    stop() {},
  };
}

export function formatResealSummary(report: ResealReport): string {
  const lines = [
    report.dryRun ? "reseal (dry run): nothing was written" : "reseal: done",
    `  ${report.dryRun ? "would move" : "moved to the current key"}: ${report.resealed}`,
    `  already under the current key: ${report.current}`,
    `  changed meanwhile (invalidated or resealed by another run): ${report.changed}`,
    `  unreadable under every key given (left as is; their users sign in again): ${report.unreadable}`,
  ];
  return `${lines.join("\n")}\n`;
}
