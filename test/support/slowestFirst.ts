import { readFileSync } from "node:fs";
import path from "node:path";

import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order files are handed to the workers: the slowest first, so a run does not end with one
 * worker on a long file while the other sits idle (2 workers on the CI machine: a 60 s file
 * started last costs up to 60 s of wall time). vitest's own order on a fresh clone (no results
 * cache) is by file size, which put the longest reliability files in the middle or at the end.
 *
 * A file's weight is the seconds test/durations.json records for it (files that held a worker
 * 3 s or more in a measured run; regenerate it from a run's TEST_DURATIONS_FILE, written by
 * fileDurations.ts; docs/decisions/0036), else 1 s; equal weights keep vitest's order (larger
 * files first). The same order on a fresh clone and locally. It changes only the schedule: every
 * file still runs, each as its project configures it.
 */
const recorded: Record<string, number> = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../durations.json"), "utf8"),
) as Record<string, number>;

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const bySize = await super.sort(files);
    const root = this.ctx.config.root;
    const weight = (spec: TestSpecification): number => {
      const file = path.relative(root, spec.moduleId).split(path.sep).join("/");
      return recorded[file] ?? 1;
    };
    const weights = new Map(bySize.map((spec) => [spec, weight(spec)]));
    return bySize
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => weights.get(b.spec)! - weights.get(a.spec)! || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
