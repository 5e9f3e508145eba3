// Writes docs/openapi.json from the route schemas, or checks that the committed copy is current.
import { readFileSync, writeFileSync } from "node:fs";

import { buildApp } from "../src/api/app.ts";
import { hs256Verifier } from "../src/auth/tokenVerifier.ts";
import { openDatabase } from "../src/db/database.ts";
import { systemClock } from "../src/domain/clock.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createMetrics } from "../src/observability/metrics.ts";
import { createServices } from "../src/runtime/services.ts";

const TARGET = "docs/openapi.json";

async function generate(): Promise<string> {
  // The pool never connects: building the document touches no database.
  const database = openDatabase("postgres://openapi@127.0.0.1:1/none");
  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const app = await buildApp({
    logger,
    events,
    metrics: createMetrics(events),
    verifier: hs256Verifier("openapi-generation-only-secret"),
    services: createServices({ db: database.db, clock: systemClock, events, logger }),
    readiness: async () => ({ ready: true, checks: {} }),
  });
  await app.ready();
  const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  await database.close();
  return document;
}

const mode = process.argv[2];
const document = await generate();
if (mode === "write") {
  writeFileSync(TARGET, document);
  console.log(`wrote ${TARGET}`);
} else if (mode === "check") {
  let committed = "";
  try {
    committed = readFileSync(TARGET, "utf8");
  } catch {
    // missing counts as drift
  }
  if (committed !== document) {
    console.error(
      `${TARGET} is out of date with the route schemas: run \`npm run openapi:write\` and commit it.`,
    );
    process.exit(1);
  }
  console.log(`${TARGET} is current`);
} else {
  console.error("usage: openapi.ts write|check");
  process.exit(2);
}
