import { describe, expect, it } from "vitest";

import { createLogger } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";

const SECRET = "eyJhbGciOiJIUzI1NiJ9.secret-token-value.signature";
// The escape character that starts every ANSI colour sequence.
const ANSI = "\u001b[";

describe("the pretty log format", () => {
  it("writes one human-readable line per entry, redacted like JSON, without colour off a terminal", () => {
    const capture = new LogCapture();
    const logger = createLogger({ destination: capture, format: { format: "pretty", colour: false } });
    logger.info({ jobId: "job-1", token: SECRET }, "job finished");
    expect(capture.lines).toHaveLength(1);
    const [line] = capture.lines;
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: job finished /);
    expect(line).toContain('"jobId":"job-1"');
    expect(line).not.toContain("secret-token-value");
    expect(line).not.toContain(ANSI);
    expect(() => JSON.parse(line!)).toThrow();
  });

  it("colours the level and message on a terminal", () => {
    const capture = new LogCapture();
    const logger = createLogger({ destination: capture, format: { format: "pretty", colour: true } });
    logger.warn("pool low");
    expect(capture.lines[0]).toContain(ANSI);
    expect(capture.lines[0]).toContain("pool low");
  });

  it("stays JSON lines when no format is asked for", () => {
    const capture = new LogCapture();
    createLogger({ destination: capture }).info({ jobId: "job-1" }, "job finished");
    expect(JSON.parse(capture.lines[0]!)).toMatchObject({ msg: "job finished", jobId: "job-1", level: 30 });
  });
});
