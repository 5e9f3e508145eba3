import { languageProfile } from "../languages/languageProfiles.ts";
import { foldText } from "./textFolding.ts";
import { startsWithAny } from "./wordMatcher.ts";

/**
 * Stage 1 of the pipeline (spec/generation.md §7): the checks a prompt must pass whatever its
 * quality — 3 to 25 words, at most 200 characters, no URL, e-mail address or phone number, no
 * placeholder left unfilled, and it must read as a question or a request (not a bare keyword).
 */

export const MIN_WORDS = 3;
export const MAX_WORDS = 25;
export const MAX_CHARACTERS = 200;

export type HardCheckFailure =
  | "too_few_words"
  | "too_many_words"
  | "too_long"
  | "url"
  | "email"
  | "phone"
  | "placeholder"
  | "bare_keyword";

export interface HardCheckContext {
  language: string;
  /** The brand and its aliases: a brand spelled like a domain (`Booking.com`) is not a URL. */
  brandNames: readonly string[];
}

const SCHEME_OR_WWW = /\b(?:https?|ftp):\/\/|\bwww\./i;
/** `lumiere.example/fr`; the last label has letters only, so a rating like "4.5/5" is no URL. */
const DOMAIN_WITH_PATH = /\b[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}\/\S*/iu;
const BARE_DOMAIN =
  /\b[\p{L}\p{N}-]{2,}(?:\.[\p{L}\p{N}-]+)*\.(?:com|net|org|io|co|fr|de|es|it|pt|nl|be|ch|at|uk|eu|us|info|biz|app|dev|ai|shop|store|example)\b/giu;
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/u;
/** Runs of digits with phone separators; a phone number has at least 7 digits (years do not). */
const DIGIT_RUNS = /\+?\(?\d[\d\s().-]{5,}\d/g;
const PLACEHOLDER =
  /\{[^{}]*\}|\{\{|\}\}|\$\{|%[sd]\b|\[[A-Z][A-Z0-9 _-]*\]|<[A-Za-z][A-Za-z0-9 _-]*>|\bTODO\b|\bX{3,}\b/;

function wordCount(text: string): number {
  return text.split(/\s+/).filter((token) => /[\p{L}\p{N}]/u.test(token)).length;
}

function hasUrl(text: string, brandNames: readonly string[]): boolean {
  if (SCHEME_OR_WWW.test(text) || DOMAIN_WITH_PATH.test(text)) return true;
  const names = brandNames.map((name) => name.toLowerCase());
  for (const match of text.matchAll(BARE_DOMAIN)) {
    const domain = match[0].toLowerCase();
    if (!names.some((name) => name.includes(domain))) return true;
  }
  return false;
}

function hasPhoneNumber(text: string): boolean {
  for (const match of text.matchAll(DIGIT_RUNS)) {
    if (match[0].replace(/\D/g, "").length >= 7) return true;
  }
  return false;
}

/** A question (a `?`, or `¿…`) or a request (a question word or request verb first). */
export function readsAsQuestionOrRequest(text: string, language: string): boolean {
  const trimmed = text.trim().replace(/["'»”’)\]]+$/u, "");
  if (trimmed.endsWith("?") || trimmed.endsWith("？") || trimmed.startsWith("¿")) return true;
  return startsWithAny(foldText(trimmed), languageProfile(language).questionLeads);
}

export function hardCheckFailure(text: string, context: HardCheckContext): HardCheckFailure | null {
  const words = wordCount(text);
  if (words < MIN_WORDS) return "too_few_words";
  if (words > MAX_WORDS) return "too_many_words";
  if (text.length > MAX_CHARACTERS) return "too_long";
  if (EMAIL.test(text)) return "email";
  if (hasUrl(text, context.brandNames)) return "url";
  if (hasPhoneNumber(text)) return "phone";
  if (PLACEHOLDER.test(text)) return "placeholder";
  if (!readsAsQuestionOrRequest(text, context.language)) return "bare_keyword";
  return null;
}
