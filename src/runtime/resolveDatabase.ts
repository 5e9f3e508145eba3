import type { Config } from "../config/env.ts";
import { acquireEmbeddedDatabase, type EmbeddedDatabase } from "../db/embeddedServer.ts";
import type { Logger } from "../observability/logger.ts";

/** `DATABASE_URL` when set, else the embedded server of the data dir (started or joined). */
export async function resolveDatabase(
  config: Config,
  logger: Logger,
): Promise<{ url: string; embedded: EmbeddedDatabase | undefined }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: undefined };
  const embedded = await acquireEmbeddedDatabase(config.dataDir, logger);
  return { url: embedded.url, embedded };
}
