/** A market as callers see it (spec/api.md §3 `Market`). */
export interface MarketModel {
  /** The catalogue id. */
  id: string;
  key: string;
  name: string;
}

export interface Market {
  geoTargetId: number;
  languageCode: string;
  /** ISO-3166 alpha-2, upper case. */
  country: string;
  projectId: string | null;
  /**
   * The upstream publish status (`draft`, `publishing`, `live`…), or `missing` when the project is
   * gone upstream (deleted outside Serenity): the market row remains so the caller can delete it.
   */
  publishStatus: string;
  models: MarketModel[];
  /** Texts in the project, drafts included. */
  promptCount: number;
  createdAt: Date;
}

/** What a market shows when its upstream project no longer exists. */
export const MISSING_PROJECT_STATUS = "missing";

/** A market write input: the ISO-2 country and a language code. */
export interface CreateMarketInput {
  market: string;
  languageCode: string;
  primaryUrl?: string | null;
  modelIds?: string[];
}

/** Where a market's project lives, and who acts on it. */
export interface ProjectRef {
  bearer: string;
  workspaceId: string;
  projectId: string;
}
