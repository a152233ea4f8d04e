import type { ResponseValidator } from "./openapi.ts";

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface Client {
  request(
    method: string,
    path: string,
    options?: { body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> },
  ): Promise<Answer>;
  get(path: string): Promise<Answer>;
  post(path: string, body: unknown): Promise<Answer>;
  del(path: string): Promise<Answer>;
}

/** The OpenAPI documents of the generated servers running, by their URL (startTranspiled adds them). */
const validators = new Map<string, ResponseValidator>();

/**
 * Checks every answer a client gets from the server at `url` against its OpenAPI documents, until
 * the returned function is called (when the server stops: its port may serve another one next).
 */
export function validateAnswersOf(url: string, validator: ResponseValidator | undefined): () => void {
  if (!validator) return () => {};
  validators.set(url, validator);
  return () => validators.delete(url);
}

/**
 * Stops checking the answers of the server at `url`: one that runs its user's own code (hooks,
 * routes) answers what its generated documents cannot describe.
 */
export function answersOutsideDocuments(url: string): void {
  validators.delete(url);
}

function validatorFor(url: string): ResponseValidator | undefined {
  for (const [server, validator] of validators) if (url.startsWith(`${server}/`)) return validator;
  return undefined;
}

/**
 * A small fetch client for a generated server: sends the key, JSON bodies, and parses answers. An
 * answer of a server started by the test helpers that its OpenAPI documents do not describe fails
 * the request (test/helpers/openapi.ts).
 */
export function client(baseUrl: string, key: string | undefined): Client {
  const request: Client["request"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(key !== undefined && { "x-api-signature": key }) };
    let body: string | Uint8Array | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const url = baseUrl + path;
    const response = await fetch(url, {
      method,
      headers: { ...headers, ...options.headers },
      body: body as BodyInit | undefined,
    });
    const text = await response.text();
    const problems = validatorFor(url)?.problems({
      method,
      url,
      status: response.status,
      headers: response.headers,
      text,
    });
    if (problems && problems.length > 0) {
      throw new Error(
        `The answer is not what the server's OpenAPI documents describe:\n  ${problems.join("\n  ")}\n${text.slice(0, 2000)}`,
      );
    }
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    request,
    get: (path) => request("GET", path),
    post: (path, body) => request("POST", path, { body }),
    del: (path) => request("DELETE", path),
  };
}

export const failure = (message: string) => ({ success: false, message, data: [] });

/** One client over several servers of the same API, each request sent to the next in turn. */
export function alternating(clients: Client[]): Client {
  let turn = 0;
  const next = () => clients[turn++ % clients.length]!;
  return {
    request: (method, path, options) => next().request(method, path, options),
    get: (path) => next().get(path),
    post: (path, body) => next().post(path, body),
    del: (path) => next().del(path),
  };
}
