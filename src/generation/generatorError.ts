/**
 * Why a generator call failed, classified from a table (retryable or not), so a job can decide
 * between a redelivery and a terminal outcome without reading messages. Messages are for logs
 * only: they never carry a response body, a key or a token.
 */
export type GeneratorFailureKind =
  /** No answer within the generator timeout. */
  | "timeout"
  /** Connection refused or reset, DNS failure, body cut short. */
  | "transport"
  /** The generator service answered 5xx (or a proxy-wrapped 5xx). */
  | "server_error"
  /** The generator service answered 429. */
  | "rate_limited"
  /** The caller aborted through its signal (a job timeout or shutdown): not a generator failure. */
  | "aborted"
  /** The service refused the request (4xx other than 429): retrying the same request cannot help. */
  | "rejected"
  /** The answer is not the contract's shape. */
  | "unparseable"
  /** The answer's verdict is none of ship, held, gate_error. */
  | "unknown_verdict"
  /** The chosen generator lacks its endpoint, or SERENITY_PROMPT_GENERATOR is not a known name. */
  | "misconfigured";

const RETRYABLE: Record<GeneratorFailureKind, boolean> = {
  timeout: true,
  transport: true,
  server_error: true,
  rate_limited: true,
  aborted: true,
  rejected: false,
  unparseable: false,
  unknown_verdict: false,
  misconfigured: false,
};

export class GeneratorError extends Error {
  readonly kind: GeneratorFailureKind;
  readonly retryable: boolean;
  /** The HTTP status behind `server_error`, `rate_limited` or `rejected`, for logs. */
  readonly status: number | undefined;

  constructor(
    kind: GeneratorFailureKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "GeneratorError";
    this.kind = kind;
    this.retryable = RETRYABLE[kind];
    this.status = options.status;
  }
}

/** Classifies an HTTP status of a generator service; undefined for 2xx. */
export function failureKindOfStatus(status: number): GeneratorFailureKind | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 429) return "rate_limited";
  if (status === 408) return "timeout";
  if (status >= 500) return "server_error";
  return "rejected";
}
