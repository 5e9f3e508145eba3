import { z } from "zod";

import { GeneratorError } from "../generatorError.ts";
import type { GeneratedPrompt } from "../wire.ts";

/**
 * Reads the prompts out of a chat-completions answer: `choices[0].message.content` must be JSON
 * with a `prompts` array (of objects with `prompt`, or of plain strings, which some models send
 * under `json_object`). Anything else — no content, a refusal, text that is not JSON — is a
 * terminal `unparseable` failure.
 */

const completion = z.looseObject({
  choices: z.array(z.looseObject({ message: z.looseObject({ content: z.string().nullish() }) })).min(1),
});

const promptItem = z.union([
  z.string().transform((prompt): GeneratedPrompt => ({ prompt, category: "" })),
  z
    .looseObject({ prompt: z.string(), category: z.string().nullish(), topic: z.string().nullish() })
    .transform((item): GeneratedPrompt =>
      item.topic
        ? { prompt: item.prompt, category: item.category ?? "", topic: item.topic }
        : {
            prompt: item.prompt,
            category: item.category ?? "",
          },
    ),
]);

const content = z.looseObject({ prompts: z.array(promptItem) });

function unparseable(message: string, cause?: unknown): GeneratorError {
  return new GeneratorError("unparseable", message, { cause });
}

export function parseChatCompletion(text: string): GeneratedPrompt[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw unparseable("The chat-completions endpoint answered with text that is not JSON.", cause);
  }
  const parsed = completion.safeParse(body);
  const message = parsed.success ? parsed.data.choices[0]!.message.content : undefined;
  if (!message) throw unparseable("The chat-completions answer has no message content.");
  let payload: unknown;
  try {
    payload = JSON.parse(message);
  } catch (cause) {
    throw unparseable("The model's message is not JSON.", cause);
  }
  const prompts = content.safeParse(payload);
  if (!prompts.success) throw unparseable("The model's JSON has no prompts array.", prompts.error);
  return prompts.data.prompts;
}
