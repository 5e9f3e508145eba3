/**
 * Per-item validation of bulk prompt input. An invalid item fails alone (400 for that item), so
 * these are checks in the service rather than in the request schema, which would reject the batch.
 */
export const MAX_PROMPT_TEXT_LENGTH = 1000;
export const MAX_CATEGORY_LENGTH = 100;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export type TextCheck = { ok: true; value: string } | { ok: false; message: string };

function checkPlainText(raw: string, field: string, maxLength: number): TextCheck {
  const value = raw.trim();
  if (value.length === 0) return { ok: false, message: `${field} must not be empty` };
  if (value.length > maxLength)
    return { ok: false, message: `${field} must be at most ${maxLength} characters` };
  if (CONTROL_CHARACTERS.test(value))
    return { ok: false, message: `${field} must not contain control characters` };
  return { ok: true, value };
}

/** A prompt's text is its identity within a project: trimmed, otherwise kept exactly. */
export function checkPromptText(raw: string): TextCheck {
  return checkPlainText(raw, "text", MAX_PROMPT_TEXT_LENGTH);
}

export function checkCategory(raw: string): TextCheck {
  return checkPlainText(raw, "category", MAX_CATEGORY_LENGTH);
}
