/**
 * `serenity serve` with the allocation lock replaced by the in-process one: the multi-process
 * suite's negative control (test/reliability/allocationMultiProcess.test.ts) and the contention
 * benchmark run two of these to show what a lock per process breaks. The same command, the same
 * environment and arguments; only the lock differs, handed to the composition root — no setting of
 * a deployment can select it (docs/decisions/0039).
 *
 * Run with `node --import tsx test/support/inProcessLockServe.ts [--with-worker]`.
 */
import { serve } from "../../src/cli/commands/serve.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createInProcessLockProvider } from "./inProcessAllocationLock.ts";

await serve(
  { withWorker: process.argv.includes("--with-worker"), migrate: false },
  { allocationLockProvider: createInProcessLockProvider(systemClock) },
);
