import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { atUpstreamEdge } from "../gateway/registryErrors.ts";
import type { AiModel, Language, Page } from "../gateway/types.ts";
import type { Logger } from "../observability/logger.ts";
import { codeForLanguageName, languageNameFor } from "./languageCodes.ts";

/** A catalogue language with its ISO code (null when no code has its English name). */
export interface CatalogueLanguage {
  id: string;
  name: string;
  code: string | null;
}

export interface CatalogueModel {
  id: string;
  key: string;
  name: string;
}

export interface CatalogueServiceDeps {
  gateway: GatewayClient;
  clock: Clock;
  logger: Logger;
  /** How long a fetched catalogue is reused; default 10 minutes. */
  ttlMs?: number;
}

const DEFAULT_TTL_MS = 10 * 60_000;
const MODEL_PAGE_SIZE = 100;
/** A runaway-pagination stop: the model catalogue holds tens of entries. */
const MAX_MODEL_PAGES = 50;

interface CacheEntry<T> {
  value: T;
  expiresAt: number;
}

/**
 * The global upstream catalogues (languages, AI models), cached per process: they change rarely,
 * every market create needs both, and there is no service account to warm them with, so the first
 * caller's bearer fetches them. Concurrent misses share one fetch.
 */
export class CatalogueService {
  readonly #ttlMs: number;
  readonly #entries = new Map<string, CacheEntry<unknown>>();
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: CatalogueServiceDeps) {
    this.#ttlMs = deps.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** `GET /v1/languages`, each entry with the ISO code matching its English name. */
  async languages(bearer: string): Promise<CatalogueLanguage[]> {
    return this.#cached("languages", async () => {
      const page = await atUpstreamEdge(this.deps.logger, "listLanguages", () =>
        this.deps.gateway.projects.listLanguages(bearer),
      );
      return page.items.map((language: Language) => ({
        id: language.id,
        name: language.name,
        code: codeForLanguageName(language.name) ?? null,
      }));
    });
  }

  /** Every page of `GET /v1/ai_models`. */
  async models(bearer: string): Promise<CatalogueModel[]> {
    return this.#cached("models", async () => {
      const gateway = this.deps.gateway;
      const models: AiModel[] = [];
      for (let page = 1; page <= MAX_MODEL_PAGES; page++) {
        const answer: Page<AiModel> = await atUpstreamEdge(this.deps.logger, "listAiModels", () =>
          gateway.projects.listAiModels(bearer, { page, limit: MODEL_PAGE_SIZE }),
        );
        models.push(...answer.items);
        if (answer.items.length === 0 || models.length >= answer.total) break;
      }
      return models.map(({ id, key, name }) => ({ id, key, name }));
    });
  }

  /** The catalogue language of an ISO code; 400 when the code or the catalogue does not know it. */
  async resolveLanguage(bearer: string, code: string): Promise<CatalogueLanguage & { code: string }> {
    const name = languageNameFor(code)?.toLowerCase();
    const wanted = code.toLowerCase();
    // By code ("zh" is the catalogue's "Chinese Simplified"), else by English name ("fil" → "Filipino").
    const language = name
      ? (await this.languages(bearer)).find(
          (entry) => entry.code === wanted || entry.name.toLowerCase() === name,
        )
      : undefined;
    if (!language) {
      throw new ServiceError("invalidRequest", { message: "languageCode is not a supported language" });
    }
    return { ...language, code: wanted };
  }

  /**
   * Catalogue models by catalogue id or key, in request order without duplicates; 400 naming the
   * field when one is unknown.
   */
  async resolveModels(bearer: string, ids: readonly string[]): Promise<CatalogueModel[]> {
    const catalogue = await this.models(bearer);
    const resolved = new Map<string, CatalogueModel>();
    for (const id of ids) {
      const model = catalogue.find((entry) => entry.id === id || entry.key === id);
      if (!model) throw new ServiceError("invalidRequest", { message: "modelIds contains an unknown model" });
      resolved.set(model.id, model);
    }
    return [...resolved.values()];
  }

  async #cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key) as CacheEntry<T> | undefined;
    if (entry && entry.expiresAt > this.deps.clock.now().getTime()) return entry.value;
    const pending = this.#inFlight.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const loading = load()
      .then((value) => {
        this.#entries.set(key, { value, expiresAt: this.deps.clock.now().getTime() + this.#ttlMs });
        return value;
      })
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, loading);
    return loading;
  }
}
