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
    options?: { body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Answer>;
  get(path: string): Promise<Answer>;
  post(path: string, body: unknown): Promise<Answer>;
  del(path: string): Promise<Answer>;
}

/** A small fetch client for a generated server: sends the key, JSON bodies, and parses answers. */
export function client(baseUrl: string, key: string | undefined): Client {
  const request: Client["request"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...(key !== undefined && { "x-api-signature": key }) };
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(baseUrl + path, { method, headers: { ...headers, ...options.headers }, body });
    const text = await response.text();
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
