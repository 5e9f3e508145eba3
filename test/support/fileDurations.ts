import fs from "node:fs";
import path from "node:path";

import type { Reporter, TestModule } from "vitest/node";

/**
 * A vitest reporter of how long each file held its worker: from the moment a worker took it
 * (before its imports and `beforeAll`) to its last hook, so set-up and spawned processes count,
 * unlike the JSON report's span of the tests alone. At the end of a run it prints the slowest
 * files (where CI's time goes, in every CI log) and, when TEST_DURATIONS_FILE names a file, writes
 * every file's seconds there (`scripts/test-durations.mjs` turns that into the committed order,
 * test/durations.json; docs/decisions/0036).
 */
export default class FileDurations implements Reporter {
  readonly #started = new Map<string, number>();
  readonly #seconds = new Map<string, number>();

  onTestModuleQueued(module: TestModule): void {
    this.#started.set(module.id, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const started = this.#started.get(module.id);
    if (started === undefined) return;
    const file = path.relative(process.cwd(), module.moduleId).split(path.sep).join("/");
    const key = `${module.project.name}:${file}`;
    this.#seconds.set(key, Math.round((Date.now() - started) / 100) / 10);
  }

  onTestRunEnd(): void {
    if (this.#seconds.size === 0) return;
    const slowest = [...this.#seconds].sort((a, b) => b[1] - a[1]).slice(0, 15);
    const total = [...this.#seconds.values()].reduce((sum, seconds) => sum + seconds, 0);
    console.log(
      `\nslowest files (seconds held a worker; all ${this.#seconds.size} files: ${Math.round(total)} s)`,
    );
    for (const [key, seconds] of slowest) console.log(`${seconds.toFixed(1).padStart(8)}  ${key}`);
    const out = process.env.TEST_DURATIONS_FILE;
    if (out) fs.writeFileSync(out, `${JSON.stringify(Object.fromEntries(this.#seconds), null, 2)}\n`);
  }
}
