import { readFileSync } from "node:fs";

import type { GatewayName } from "../../src/gateway/types.ts";

/**
 * What live Semrush answers that the published documents still do not declare — the README of
 * test/fixtures/semrush/ lists them, and they are the only departures the conformance check
 * allows (test/support/exchangeConformance.ts). Each entry names its fact; nothing else passes.
 */

/** An answer as recorded on the wire. */
export interface RecordedAnswer {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string | undefined>;
}

/** A live fact that accepts a whole answer the document does not declare (an error layer). */
export interface AnswerFact {
  name: string;
  /** The README's row, in short. */
  fact: string;
  gateway: GatewayName | "both";
  /** Operation labels (`POST /v1/workspaces/{id}/projects`) it applies to; undefined = every one. */
  operations?: readonly string[];
  matches(answer: RecordedAnswer): boolean;
}

/** A field the strict check lets through although the document does not declare it. */
export interface FieldFact {
  name: string;
  fact: string;
  operations: readonly string[];
  /** The field's path as the strict check names it (`limits_enabled`, `items[].x`). */
  field: string;
}

/** A live shape the documents allow but do not pin, checked on the simulator's answers. */
export interface ShapeFact {
  name: string;
  fact: string;
  operations: readonly string[];
  /** Field paths that break it, with what is wrong. */
  check(body: unknown): { field: string; message: string }[];
}

const PROJECT = "/v1/workspaces/{id}/projects/{project_id}";
const PROJECT_V2 = "/v2/workspaces/{id}/projects/{project_id}";
const PROJECT_V3 = "/v3/workspaces/{id}/projects/{project_id}";

export const isJson = (contentType: string) => /^application\/json\b/i.test(contentType);
const isTextPlain = (contentType: string) => /^text\/plain\b/i.test(contentType);

function parsed(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** `{"message": <text>}` and nothing else (optionally exactly `text`). */
function isMessageBody(body: string, text?: string): boolean {
  const value = parsed(body);
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const message = (value as { message?: unknown }).message;
  return keys.length === 1 && typeof message === "string" && (text === undefined || message === text);
}

export const ANSWER_FACTS: readonly AnswerFact[] = [
  {
    name: "unauthenticated401",
    fact: 'a missing or unusable bearer: 401 {"detail":"Not authenticated"} on every route',
    gateway: "both",
    matches: (a) =>
      a.status === 401 &&
      isJson(a.contentType) &&
      JSON.stringify(parsed(a.body)) === '{"detail":"Not authenticated"}',
  },
  {
    name: "meteredQuota405",
    fact: "a metered write over quota: 405 with a text/html body (the edge's disguised quota refusal)",
    gateway: "pe",
    // The README names project create, prompt write and publish; a model add is the fourth metered
    // write of spec/gateway.md §3 (it stages one prompt unit per text).
    operations: [
      "POST /v1/workspaces/{id}/projects",
      `POST ${PROJECT_V3}/aio/prompts`,
      `POST ${PROJECT}/publish`,
      `POST ${PROJECT_V2}/ai_models`,
    ],
    matches: (a) =>
      a.status === 405 &&
      /^text\/html\b/i.test(a.contentType) &&
      a.body !== "" &&
      parsed(a.body) === undefined,
  },
  {
    name: "projectNotFound404",
    fact: 'a missing project on read, delete, publish, prompt create, by-tags list, model list: 404 {"message":"not found"} (text/plain)',
    gateway: "pe",
    operations: [
      `GET ${PROJECT}`,
      `DELETE ${PROJECT}`,
      `POST ${PROJECT}/publish`,
      `POST ${PROJECT_V3}/aio/prompts`,
      `POST ${PROJECT_V2}/aio/prompts/by_tags`,
      `GET ${PROJECT}/ai_models`,
    ],
    matches: (a) => a.status === 404 && isTextPlain(a.contentType) && isMessageBody(a.body, "not found"),
  },
  {
    name: "peErrorsAsTextPlain",
    fact: "Project Engine application errors (400/409/500) are JSON {message} bodies sent as text/plain",
    gateway: "pe",
    matches: (a) => [400, 409, 500].includes(a.status) && isTextPlain(a.contentType) && isMessageBody(a.body),
  },
  {
    name: "insufficientUnits422",
    fact: '422 {"message":"insufficient available units in subscription"} on child create or transfer',
    gateway: "um",
    operations: ["POST /v2/workspaces/{id}/child", "POST /v2/workspaces/{id}/resources/transfer"],
    matches: (a) =>
      a.status === 422 &&
      isJson(a.contentType) &&
      isMessageBody(a.body, "insufficient available units in subscription"),
  },
  {
    name: "workspaceNotReady422",
    fact: '422 {"message":"workspace not ready"} on transfer or delete of a settling child',
    gateway: "um",
    operations: ["POST /v2/workspaces/{id}/resources/transfer", "DELETE /v1/workspaces/{id}"],
    matches: (a) => a.status === 422 && isJson(a.contentType) && isMessageBody(a.body, "workspace not ready"),
  },
  {
    name: "requestLimit429",
    fact: "429 from the published request limits (10 / s and 10 in flight per account and group), no Retry-After",
    gateway: "both",
    matches: (a) => a.status === 429 && a.headers["retry-after"] === undefined && isMessageBody(a.body),
  },
];

export const FIELD_FACTS: readonly FieldFact[] = [];

interface LiveCatalogues {
  aiModels: { id: string; key: string; name: string; icon: string }[];
  languages: { id: string; name: string; iso: string }[];
}

export const LIVE_CATALOGUES = JSON.parse(
  readFileSync(new URL("../fixtures/semrush/live-catalogues.json", import.meta.url), "utf8"),
) as LiveCatalogues;

function itemsOf(body: unknown): unknown[] {
  const items = (body as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items : [];
}

function projectsOf(body: unknown): unknown[] {
  return Array.isArray((body as { items?: unknown })?.items) ? itemsOf(body) : [body];
}

export const SHAPE_FACTS: readonly ShapeFact[] = [
  {
    name: "liveLanguageCatalogue",
    fact: "the live language catalogue: 38 languages, UUID string ids, English names",
    operations: ["GET /v1/languages"],
    check(body) {
      const sent = JSON.stringify(itemsOf(body));
      const live = JSON.stringify(LIVE_CATALOGUES.languages.map(({ id, name }) => ({ id, name })));
      return sent === live ? [] : [{ field: "items", message: "is not the live language catalogue" }];
    },
  },
  {
    name: "liveModelCatalogue",
    fact: "the live AI model catalogue: 11 models, UUID string ids, the live keys, names and icons",
    operations: ["GET /v1/ai_models"],
    check(body) {
      const byId = new Map(LIVE_CATALOGUES.aiModels.map((model) => [model.id, model]));
      return itemsOf(body).flatMap((item) =>
        JSON.stringify(item) === JSON.stringify(byId.get((item as { id?: string }).id ?? ""))
          ? []
          : [
              {
                field: "items[]",
                message: `${JSON.stringify(item)} is not an entry of the live model catalogue`,
              },
            ],
      );
    },
  },
  {
    name: "projectLanguageIsIso",
    fact: "the project read view nests the language under settings.ai, its name the ISO code",
    operations: [
      "GET /v1/workspaces/{id}/projects",
      "POST /v1/workspaces/{id}/projects",
      `GET ${PROJECT}`,
      `PATCH ${PROJECT}`,
    ],
    check(body) {
      return projectsOf(body).flatMap((project) => {
        const language = (project as { settings?: { ai?: { language?: { id?: string; name?: string } } } })
          .settings?.ai?.language;
        const live = LIVE_CATALOGUES.languages.find((entry) => entry.id === language?.id);
        const at = Array.isArray((body as { items?: unknown })?.items) ? "items[]." : "";
        if (!live) return [{ field: `${at}settings.ai.language.id`, message: "is not a live catalogue id" }];
        return language?.name === live.iso
          ? []
          : [{ field: `${at}settings.ai.language.name`, message: `is not the ISO code "${live.iso}"` }];
      });
    },
  },
];
