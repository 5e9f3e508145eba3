import type { BrandRow } from "../../src/db/brands/brandRow.ts";
import { insertBrand } from "../../src/db/brands/insertBrand.ts";

/** insertBrand for a test that gives every brand its own name: the row, or the test fails. */
export async function insertTestBrand(...args: Parameters<typeof insertBrand>): Promise<BrandRow> {
  const inserted = await insertBrand(...args);
  if (inserted === "nameTaken") throw new Error(`a brand named ${args[1].name} already exists`);
  return inserted;
}
