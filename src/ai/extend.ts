import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { RawManifest } from "../manifest/schema.ts";
import { SYSTEM_PROMPT } from "./prompt.ts";
import { OMITTED, toAiForm } from "./schema.ts";

/**
 * Extending a manifest that exists (the studio's AI page): the model is shown the current
 * manifest in its own form and asked for the whole revised one; what its form cannot hold is
 * carried over from the current manifest to the entries the draft keeps.
 */

/** The opening of a conversation that changes an existing manifest: the manifest, then the user's instructions. */
export function extensionMessages(current: RawManifest, instructions: string): ChatCompletionMessageParam[] {
  return [
    { role: "system", content: SYSTEM_PROMPT },
    {
      role: "user",
      content:
        "This is the application's current manifest, in the structure of the response schema. Keep every table, " +
        "field and query the next message does not ask to change, with its name and options:\n" +
        JSON.stringify(toAiForm(current)),
    },
    { role: "user", content: instructions },
  ];
}

/**
 * The draft with what the model's form leaves out (`renamedFrom`, a field's `names` and
 * `inVersions`, a table's `renamedFrom`) taken from `current` for every table and field the draft
 * keeps under the same name, and the versions' deprecations when the draft keeps the same labels.
 */
export function carryOver(current: RawManifest, draft: unknown): unknown {
  if (!isRecord(draft) || !isRecord(draft.tables)) return draft;
  const tables: Record<string, unknown> = {};
  for (const [name, table] of Object.entries(draft.tables)) {
    const before = current.tables[name];
    if (!before || !isRecord(table) || !isRecord(table.fields)) {
      tables[name] = table;
      continue;
    }
    const fields: Record<string, unknown> = {};
    for (const [fieldName, field] of Object.entries(table.fields)) {
      const old = before.fields[fieldName];
      const kept = typeof old === "object" ? omittedOf(old) : {};
      fields[fieldName] =
        Object.keys(kept).length === 0 ? field : { ...(isRecord(field) ? field : { type: field }), ...kept };
    }
    tables[name] = { ...table, ...omittedOf(before), fields };
  }
  const result: Record<string, unknown> = { ...draft, tables };
  const versions = current.versions;
  const drafted = draft.versions;
  if (versions && !Array.isArray(versions) && Array.isArray(drafted)) {
    const labels = Object.keys(versions);
    if (labels.length === drafted.length && labels.every((label, index) => drafted[index] === label))
      result.versions = versions;
  }
  return result;
}

function omittedOf(entry: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => OMITTED.has(key)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
