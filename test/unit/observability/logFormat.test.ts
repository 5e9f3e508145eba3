import { describe, expect, it } from "vitest";

import { chooseLogFormat } from "../../../src/observability/logFormat.ts";

describe("the log format a command writes", () => {
  it("is pretty, in colour, only for `start` on a terminal", () => {
    expect(chooseLogFormat({ command: "start", override: undefined, toTerminal: true })).toEqual({
      format: "pretty",
      colour: true,
    });
  });

  it("stays JSON for `start` into a pipe or a file, and for serve and worker even on a terminal", () => {
    const json = { format: "json", colour: false };
    expect(chooseLogFormat({ command: "start", override: undefined, toTerminal: false })).toEqual(json);
    expect(chooseLogFormat({ command: "serve", override: undefined, toTerminal: true })).toEqual(json);
    expect(chooseLogFormat({ command: "worker", override: undefined, toTerminal: true })).toEqual(json);
    expect(chooseLogFormat({ command: undefined, override: undefined, toTerminal: true })).toEqual(json);
  });

  it("follows LOG_FORMAT either way, with colour only on a terminal", () => {
    expect(chooseLogFormat({ command: "start", override: "json", toTerminal: true })).toEqual({
      format: "json",
      colour: false,
    });
    expect(chooseLogFormat({ command: "serve", override: "pretty", toTerminal: false })).toEqual({
      format: "pretty",
      colour: false,
    });
    expect(chooseLogFormat({ command: "worker", override: "pretty", toTerminal: true })).toEqual({
      format: "pretty",
      colour: true,
    });
  });
});
