import { describe, expect, it } from "vitest";

import { createLogger, truncateForLog } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";

const SECRET = "eyJhbGciOiJIUzI1NiJ9.secret-token-value.signature";

describe("central log redaction", () => {
  it("redacts authorization headers, tokens, cookies and sealed credentials wherever they appear", () => {
    const capture = new LogCapture();
    const logger = createLogger({ level: "info", destination: capture });
    logger.info(
      { req: { headers: { authorization: `Bearer ${SECRET}`, cookie: `s=${SECRET}` } } },
      "request",
    );
    logger.info({ headers: { authorization: `Bearer ${SECRET}` } }, "headers");
    logger.info({ token: SECRET, credential: { sealed: SECRET, token: SECRET } }, "credential");
    logger.info({ upstream: { accessToken: SECRET, bearer: SECRET } }, "upstream");
    logger.info({ authorization: `Bearer ${SECRET}` }, "bare");
    expect(capture.lines).toHaveLength(5);
    for (const line of capture.lines) {
      expect(line).not.toContain("secret-token-value");
      expect(line).toContain("[redacted]");
    }
  });

  it("truncates upstream bodies to 2 KB", () => {
    const body = "x".repeat(5000);
    const truncated = truncateForLog(body);
    expect(truncated.length).toBeLessThan(2100);
    expect(truncated).toContain("truncated 2952 chars");
    expect(truncateForLog({ a: 1 })).toBe('{"a":1}');
  });
});

describe("database error parameters", () => {
  it("never reach a log line, while the failing statement does", () => {
    const capture = new LogCapture();
    const logger = createLogger({ level: "info", destination: capture });
    const error = new Error(
      'Failed query: insert into "credentials" values ($1, $2)\nparams: owner-1,SEALED-BYTES-abc',
    );
    logger.error({ err: error }, "insert failed");
    expect(capture.lines[0]).toContain('insert into \\"credentials\\"');
    expect(capture.lines[0]).not.toContain("SEALED-BYTES");
  });
});
