import type { ErrorBody, ProblemAt, StreamEvent } from "../src/studio/protocol.ts";

/** An answer of the studio's API that is not a success: its status, its message, and the manifest's problems if any. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: ProblemAt[] = [],
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as ErrorBody;
    return new ApiError(response.status, body.message ?? text, body.problems ?? []);
  } catch {
    return new ApiError(response.status, text || `${response.status} ${response.statusText}`);
  }
}

/** A JSON request to the studio's API; throws an ApiError for anything but a 2xx. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

/** A request to the generated server through the studio: its status, headers and envelope, whatever the status. */
export async function serverApi(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: { success: boolean; message: string; data: unknown } }> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = { success: false, message: text, data: [] };
  }
  const envelope = parsed as { success?: boolean; message?: string; data?: unknown };
  if (typeof envelope.success !== "boolean") {
    // Not the server's envelope: the studio's own answer (a stopped server, a refused request).
    throw new ApiError(response.status, envelope.message ?? text);
  }
  return {
    status: response.status,
    headers: response.headers,
    body: { success: envelope.success, message: envelope.message ?? "", data: envelope.data },
  };
}

/**
 * A long step: its progress events as they arrive (NDJSON), then its result; throws an ApiError
 * when the request is refused or the step fails (its one clear message).
 */
export async function stream<T>(
  path: string,
  body: unknown,
  onEvent: (event: StreamEvent) => void,
): Promise<T | undefined> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let result: T | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (value) pending += decoder.decode(value, { stream: true });
    const lines = pending.split("\n");
    pending = done ? "" : lines.pop()!;
    for (const line of lines) {
      if (line.trim() === "") continue;
      const event = JSON.parse(line) as StreamEvent;
      if (event.type === "error") throw new ApiError(200, event.message);
      if (event.type === "done") result = event.result as T;
      else onEvent(event);
    }
    if (done) return result;
  }
}
