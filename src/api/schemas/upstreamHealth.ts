import { z } from "zod";

import { isoTimestamp } from "./common.ts";

export const upstreamHealthSchema = z
  .object({
    reachable: z.boolean().nullable().meta({
      description:
        "Whether this API process's last probe of the Semrush gateway got an answer (every 30 s); null before the first probe",
    }),
    checkedAt: isoTimestamp.nullable().meta({ description: "When that probe answered or failed" }),
    since: isoTimestamp.nullable().meta({
      description: "Since when the gateway has been in this state (this process's first probe at the latest)",
    }),
  })
  .meta({ id: "UpstreamHealth" });
