import type { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { JobQueue } from "./queue.ts";
import type { JobRegistry } from "./registry.ts";

/** What the job system's parts (the runner, the reconciler, the worker) are composed from. */
export interface JobSystemDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  registry: JobRegistry;
  queue: JobQueue;
  credentials: CredentialStore;
}
