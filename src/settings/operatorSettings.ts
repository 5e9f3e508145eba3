import type { Db } from "../db/database.ts";
import { findSetting } from "../db/settings/findSetting.ts";
import { upsertSetting } from "../db/settings/upsertSetting.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";

/**
 * Operator settings (table `settings`): switches an operator flips at run time for every process
 * at once (`serenity admin set <key> <value>`). Reads are cached per process for at most
 * `cacheMs` (default 60 s, spec/generation.md §2), so a flip reaches every process within a minute
 * without a database read per request. Only known keys may be set, with a value of their type.
 */

export const OPERATOR_SETTINGS = {
  /** Generation's readiness switch: `false` stops new generation jobs (fail closed). Default true. */
  "generation.consumerReady": { type: "boolean", default: true },
} as const;

export type OperatorSettingKey = keyof typeof OPERATOR_SETTINGS;

export const DEFAULT_SETTINGS_CACHE_MS = 60_000;

export function isOperatorSettingKey(key: string): key is OperatorSettingKey {
  return Object.hasOwn(OPERATOR_SETTINGS, key);
}

/** `"true"`/`"false"` (case-insensitive) as a boolean setting's value; anything else is refused. */
export function parseSettingValue(key: OperatorSettingKey, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (OPERATOR_SETTINGS[key].type === "boolean" && (value === "true" || value === "false"))
    return value === "true";
  throw new ServiceError("invalidRequest", { message: `${key} must be true or false` });
}

export class OperatorSettings {
  readonly #cache = new Map<string, { value: unknown; readAt: number }>();

  constructor(private readonly deps: { db: Db; clock: Clock; cacheMs?: number }) {}

  /** The boolean value of `key`: the stored one when it is a boolean, else the default. */
  async flag(key: OperatorSettingKey): Promise<boolean> {
    const stored = await this.#read(key);
    return typeof stored === "boolean" ? stored : OPERATOR_SETTINGS[key].default;
  }

  async set(key: string, raw: string): Promise<{ key: OperatorSettingKey; value: boolean }> {
    if (!isOperatorSettingKey(key)) {
      throw new ServiceError("invalidRequest", {
        message: `unknown setting; known: ${Object.keys(OPERATOR_SETTINGS).join(", ")}`,
      });
    }
    const value = parseSettingValue(key, raw);
    await upsertSetting(this.deps.db, { key, value, now: this.deps.clock.now() });
    this.#cache.delete(key);
    return { key, value };
  }

  async #read(key: string): Promise<unknown> {
    const now = this.deps.clock.now().getTime();
    const cached = this.#cache.get(key);
    const cacheMs = this.deps.cacheMs ?? DEFAULT_SETTINGS_CACHE_MS;
    if (cached && now - cached.readAt < cacheMs) return cached.value;
    const value = await findSetting(this.deps.db, key);
    this.#cache.set(key, { value, readAt: now });
    return value;
  }
}
