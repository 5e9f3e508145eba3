import type { BrandRow } from "../db/brands/brandRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";

/**
 * How the endpoints that create markets (and the jobs that chain them) hand a new market to the
 * one generation producer (generation/generationProducer.ts). The producer sits on a higher layer
 * and implements this port; markets name only what they pass and what comes back. It never
 * throws: generation never fails a market.
 */

/** A producer's answer to a request that started (or found) a generation: spec/generation.md §2 step 5. */
export interface PromptGenerationHandle {
  jobId: string;
  status: "provisioning";
  /** True when an existing job was handed back (running, or waiting for re-authentication). */
  reused: boolean;
}

/** Who asked: their `sub` owns the job; their bearer reads the seeds and is sealed for the worker. */
export interface GenerationCaller {
  sub: string;
  bearer: string;
  requestId?: string | undefined;
}

export interface ProduceGeneration {
  caller: GenerationCaller;
  brand: BrandRow;
  org: OrgWithMetering;
  /** The market just created (or, on activate, requested): its slice. */
  market: { geoTargetId: number; languageCode: string; country: string };
  /** The request's `generatePrompts`. */
  generatePrompts: boolean | undefined;
}

export interface GenerationProducerPort {
  produce(request: ProduceGeneration): Promise<PromptGenerationHandle | undefined>;
}

export function generationForMarket(
  producer: GenerationProducerPort,
  caller: GenerationCaller,
  brand: BrandRow,
  org: OrgWithMetering,
  market: { geoTargetId: number; languageCode: string; country: string },
  generatePrompts: boolean | undefined,
): Promise<PromptGenerationHandle | undefined> {
  return producer.produce({ caller, brand, org, market, generatePrompts });
}
