import { z } from "zod";

export const faultRuleSchema = z
  .object({
    match: z.object({
      method: z
        .string()
        .min(1)
        .transform((method) => method.toUpperCase())
        .optional(),
      pathPattern: z.string().min(1),
    }),
    action: z
      .object({
        status: z.number().int().min(100).max(599).optional(),
        body: z.unknown().optional(),
        contentType: z.string().min(1).optional(),
        delayMs: z.number().int().min(0).max(600_000).optional(),
        afterCommit504: z.boolean().optional(),
        dropConnection: z.boolean().optional(),
      })
      .strict(),
    times: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
  })
  .strict();

export type FaultRuleInput = z.input<typeof faultRuleSchema>;
export type FaultAction = z.output<typeof faultRuleSchema>["action"];

interface FaultRule {
  id: string;
  method: string | undefined;
  pattern: RegExp;
  action: FaultAction;
  remaining: number | undefined;
  probability: number | undefined;
}

/**
 * Fault rules of `/__sim/faults`: the first rule whose method and path pattern match (and whose
 * probability roll, from the simulator's seeded generator, succeeds) applies; `times` bounds how often.
 */
export class FaultRules {
  #rules: FaultRule[] = [];
  #nextId = 1;

  /** Throws a SyntaxError for an invalid `pathPattern`. */
  add(input: z.output<typeof faultRuleSchema>): string {
    const id = `fault-${this.#nextId++}`;
    this.#rules.push({
      id,
      method: input.match.method,
      pattern: new RegExp(input.match.pathPattern),
      action: input.action,
      remaining: input.times,
      probability: input.probability,
    });
    return id;
  }

  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((rule) => rule.id !== id);
    return this.#rules.length < before;
  }

  clear(): void {
    this.#rules = [];
  }

  get size(): number {
    return this.#rules.length;
  }

  take(method: string, path: string, random: () => number): FaultAction | undefined {
    for (const rule of this.#rules) {
      if (rule.method && rule.method !== method) continue;
      if (!rule.pattern.test(path)) continue;
      if (rule.probability !== undefined && random() >= rule.probability) continue;
      if (rule.remaining !== undefined) {
        rule.remaining -= 1;
        if (rule.remaining <= 0) this.remove(rule.id);
      }
      return rule.action;
    }
    return undefined;
  }
}

/** mulberry32: a small seeded generator, so fault probabilities replay identically run to run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
