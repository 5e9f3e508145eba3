import { z } from "zod";

export const modelCatalogue = z
  .object({ items: z.array(z.object({ id: z.string(), key: z.string(), name: z.string() })) })
  .meta({ id: "ModelCatalogue" });

export const languageCatalogue = z
  .object({ items: z.array(z.object({ code: z.string(), name: z.string(), id: z.string() })) })
  .meta({ id: "LanguageCatalogue", description: "`{items}` like every catalogue (a bare array before)" });
