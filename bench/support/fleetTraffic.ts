/**
 * The fleet benchmark's light background of API traffic on a few orgs: pool views, prompt lists and
 * small prompt writes, at a fixed arrival rate (open loop: a slow answer does not slow the arrivals,
 * so both phases get the same load). Each answer is kept with the phase it started in.
 */
import type { RoundRobinCall } from "./roundRobinApi.ts";

export interface ActiveOrg {
  id: string;
  token: string;
  /** Brands whose US market is ready (prompts are listed and written there). */
  brands: string[];
}

export interface Sample {
  phase: string;
  op: string;
  status: number;
  ms: number;
}

export type ApiCall = RoundRobinCall;

const OPS: [string, number][] = [
  ["pool view", 4],
  ["prompt list", 4],
  ["brand read", 1],
  ["prompt write", 1],
];
const TOTAL = OPS.reduce((sum, [, weight]) => sum + weight, 0);
/** Requests in flight beyond this are not started (counted as skipped): the bench must not pile up. */
const MAX_IN_FLIGHT = 200;

export class Traffic {
  readonly samples: Sample[] = [];
  skipped = 0;
  phase = "running";
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #written = 0;

  constructor(
    private readonly call: ApiCall,
    private readonly orgs: ActiveOrg[],
    private readonly random: () => number,
  ) {}

  start(perSecond: number): void {
    this.#timer = setInterval(() => this.#launch(), Math.max(1, Math.round(1000 / perSecond)));
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#inFlight);
  }

  #launch(): void {
    if (this.#inFlight.size >= MAX_IN_FLIGHT) {
      this.skipped += 1;
      return;
    }
    const org = this.orgs[Math.floor(this.random() * this.orgs.length)];
    if (!org || org.brands.length === 0) return;
    const brand = org.brands[Math.floor(this.random() * org.brands.length)]!;
    let roll = this.random() * TOTAL;
    const op = OPS.find(([, weight]) => (roll -= weight) < 0)?.[0] ?? "pool view";
    const phase = this.phase;
    const base = `/v2/orgs/${org.id}`;
    const request =
      op === "pool view"
        ? this.call("GET", `${base}/serenity/resources`, org.token)
        : op === "prompt list"
          ? this.call(
              "GET",
              `${base}/brands/${brand}/serenity/prompts?geoTargetId=2840&languageCode=en&limit=50`,
              org.token,
            )
          : op === "brand read"
            ? this.call("GET", `${base}/brands/${brand}`, org.token)
            : this.call("POST", `${base}/brands/${brand}/serenity/prompts`, org.token, {
                items: [1, 2].map((i) => ({
                  text: `What is a good fleet choice ${Date.now()}-${++this.#written}-${i}?`,
                  geoTargetId: 2840,
                  languageCode: "en",
                })),
              });
    const done = request.then((answer) => {
      this.samples.push({ phase, op, status: answer.status, ms: answer.ms });
    });
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
