import type { AnyJobHandler } from "./handler.ts";
import { JOB_ERROR_MESSAGES } from "./jobErrorMessages.ts";

/** Used for records whose type no handler claims (the reconciler still needs a bound). */
export const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * The job types this deployment knows: handlers, public names, families and error sentences.
 * Every process (API and worker) builds the same registry in `createServices`, so the API can
 * name a job's public type and follow provisioning hand-offs without running the handler.
 */
export class JobRegistry {
  readonly #handlers = new Map<string, AnyJobHandler>();
  readonly #messages = new Map<string, string>(Object.entries(JOB_ERROR_MESSAGES));

  registerHandler(handler: AnyJobHandler): this {
    if (this.#handlers.has(handler.type)) throw new Error(`Job type ${handler.type} is already registered`);
    if (!(handler.timeoutMs > 0)) throw new Error(`${handler.type}: timeoutMs must be positive`);
    if (!(handler.leaseTtlMs > handler.timeoutMs)) {
      throw new Error(`${handler.type}: leaseTtlMs must exceed timeoutMs`);
    }
    if (!Number.isInteger(handler.maxAttempts) || handler.maxAttempts < 1) {
      throw new Error(`${handler.type}: maxAttempts must be a positive integer`);
    }
    this.#handlers.set(handler.type, handler);
    for (const [code, message] of Object.entries(handler.errorMessages ?? {}))
      this.#messages.set(code, message);
    return this;
  }

  get(type: string): AnyJobHandler | undefined {
    return this.#handlers.get(type);
  }

  has(type: string): boolean {
    return this.#handlers.has(type);
  }

  types(): string[] {
    return [...this.#handlers.keys()];
  }

  all(): AnyJobHandler[] {
    return [...this.#handlers.values()];
  }

  /** The client-facing name; an unregistered type is shown as stored. */
  publicTypeOf(type: string): string {
    return this.#handlers.get(type)?.publicType ?? type;
  }

  familyOf(type: string): string | undefined {
    return this.#handlers.get(type)?.family;
  }

  maxAttemptsOf(type: string): number {
    return this.#handlers.get(type)?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }

  /** The caller-safe sentence for an error code, if one is registered. */
  messageFor(code: string): string | undefined {
    return this.#messages.get(code);
  }
}
