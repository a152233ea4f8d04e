import { APIConnectionError, APIConnectionTimeoutError, APIError, OpenAI } from "openai";
import { AI_JSON_SCHEMA } from "../ai/schema.ts";
import { SCHEMA_NAME, type Complete } from "../ai/generate.ts";
import { UserError } from "../errors.ts";

/**
 * The AI generator's requests through the openai SDK: Chat Completions with strict structured
 * output, no retries (the timeout is the longest wait of one request), every failure one message.
 */
export function openaiCompletion(options: {
  apiKey: string;
  /** Default: OPENAI_BASE_URL, read by the SDK itself. */
  baseURL?: string;
  model: string;
  timeoutSeconds: number;
}): Complete {
  const client = new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    timeout: options.timeoutSeconds * 1000,
    maxRetries: 0,
  });
  return async (messages) => {
    try {
      return await client.chat.completions.create({
        model: options.model,
        messages,
        response_format: {
          type: "json_schema",
          json_schema: { name: SCHEMA_NAME, strict: true, schema: AI_JSON_SCHEMA },
        },
      });
    } catch (error) {
      throw serverError(error, client.baseURL, options.timeoutSeconds);
    }
  };
}

/** An error of the SDK (HTTP, network, timeout) → one clear message. */
function serverError(error: unknown, baseURL: string, timeoutSeconds: number): unknown {
  if (error instanceof APIConnectionTimeoutError)
    return new UserError(`the model did not answer within ${timeoutSeconds} s`);
  if (error instanceof APIConnectionError) {
    const reason = connectionReason(error);
    return new UserError(`cannot reach the model server at ${baseURL}${reason ? ` (${reason})` : ""}`);
  }
  if (error instanceof APIError && error.status !== undefined) {
    const prefix = `${error.status} `;
    let message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    if (typeof error.error === "string") message = error.error;
    if (message === "status code (no body)") return new UserError(`the model server answered ${error.status}`);
    const line = message.trim().split("\n")[0]!;
    const shown = line.length > 300 ? `${line.slice(0, 300)}…` : line;
    return new UserError(`the model server answered ${error.status}: ${shown}`);
  }
  return error;
}

/** The system's reason for a failed connection (ECONNREFUSED, ENOTFOUND...), when it gave one. */
function connectionReason(error: Error): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === "string") return code;
    cause = cause.cause;
  }
  return cause instanceof Error ? cause.message : undefined;
}
