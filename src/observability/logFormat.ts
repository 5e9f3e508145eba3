export type LogFormat = "json" | "pretty";

export interface LogFormatChoice {
  format: LogFormat;
  /** ANSI colours: only when the lines go to a terminal, never into a file or a pipe. */
  colour: boolean;
}

/**
 * How a command logs. `serenity start` is the command a person runs and watches, so on a terminal
 * it prints human-readable lines; everything else (`serve`, `worker`, any output that is not a
 * terminal) keeps one JSON object per line for a log pipeline. LOG_FORMAT overrides either way.
 */
export function chooseLogFormat(input: {
  command: string | undefined;
  override: LogFormat | undefined;
  toTerminal: boolean;
}): LogFormatChoice {
  const format = input.override ?? (input.command === "start" && input.toTerminal ? "pretty" : "json");
  return { format, colour: format === "pretty" && input.toTerminal };
}
