import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small OpenAI-compatible server of our own on loopback (a real socket: the SDK is not mocked):
 * `POST /v1/chat/completions` answers each request with the next scripted reply and records it.
 */

export type Reply =
  /** A chat completion whose message content is this (an object is sent as its JSON). */
  | { content: unknown; finishReason?: string; delayMs?: number }
  /** A completion whose message is a refusal. */
  | { refusal: string }
  /** An HTTP error, with a body (an object is sent as JSON, a string as text). */
  | { status: number; body?: unknown }
  /** No answer at all until the connection is closed. */
  | { hang: true };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: ChatRequest;
}

/** What the tests read of a Chat Completions request. */
export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format: {
    type: string;
    json_schema: { name: string; strict: boolean; schema: Record<string, unknown> };
  };
  [key: string]: unknown;
}

export interface FakeOpenAI {
  /** The base URL, for OPENAI_BASE_URL: http://127.0.0.1:<port>/v1 */
  url: string;
  requests: RecordedRequest[];
  /** Adds replies to the script, after those not used yet. */
  queue(...replies: Reply[]): void;
  close(): Promise<void>;
}

export async function startFakeOpenAI(replies: Reply[]): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const pending = [...replies];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const send = (status: number, body: unknown) => {
        const text = typeof body === "string" ? body : JSON.stringify(body);
        response.writeHead(status, {
          "content-type": typeof body === "string" ? "text/plain" : "application/json",
        });
        response.end(text);
      };
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
        send(404, { error: { message: `no route ${request.method} ${request.url}`, type: "invalid_request_error" } });
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
      requests.push({ method: request.method, url: request.url, headers: request.headers, body });
      const reply = pending.shift();
      if (!reply) {
        send(500, { error: { message: "no scripted reply left", type: "server_error" } });
        return;
      }
      if ("hang" in reply) return;
      if ("status" in reply) {
        send(reply.status, reply.body ?? "");
        return;
      }
      const message =
        "refusal" in reply
          ? { role: "assistant", content: null, refusal: reply.refusal }
          : {
              role: "assistant",
              content: typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content),
              refusal: null,
            };
      const completion = {
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message,
            finish_reason: "finishReason" in reply && reply.finishReason ? reply.finishReason : "stop",
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
      };
      const delay = "delayMs" in reply ? (reply.delayMs ?? 0) : 0;
      setTimeout(() => send(200, completion), delay);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    queue: (...replies) => void pending.push(...replies),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
