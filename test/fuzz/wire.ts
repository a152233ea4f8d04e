import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { FuzzRequest } from "./requests.ts";

/** What came back for one request over a raw socket. */
export interface Answer {
  /** The final (non-1xx) answer's status; undefined when none came complete. */
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Why there is no complete answer: the connection closed first, or nothing came in time. */
  problem?: "unanswered" | "hang";
  /** The connection's error, if it had one. */
  failure?: string;
  ms: number;
}

/** Milliseconds between the pieces of a slow request. */
const PIECE_PAUSE_MS = 60;

/**
 * Sends a request's bytes on a fresh connection and reads the first complete answer: a status line
 * and headers, then a body by Content-Length, chunked coding, or up to the close (none after HEAD,
 * 204 or 304). 1xx answers are skipped. Gives up after `deadlineMs`.
 */
export async function exchange(port: number, request: FuzzRequest, deadlineMs: number): Promise<Answer> {
  const started = performance.now();
  const socket = connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  let received = Buffer.alloc(0);
  let closed = false;
  let wake: () => void = () => {};
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    wake();
  });
  let failure = "";
  socket.on("error", (error: NodeJS.ErrnoException) => (failure = error.code ?? error.message));
  socket.on("close", () => {
    closed = true;
    wake();
  });
  const finished = (answer: Omit<Answer, "ms">): Answer => {
    socket.destroy();
    return { ...answer, ms: Math.round(performance.now() - started) };
  };

  const writing = (async () => {
    await new Promise<void>((resolve) => socket.once("connect", resolve).once("close", resolve));
    const { bytes, pieces } = request;
    const size = Math.ceil(bytes.length / pieces);
    for (let offset = 0; offset < bytes.length && !socket.destroyed; offset += size) {
      socket.write(bytes.subarray(offset, offset + size));
      if (offset + size < bytes.length) await sleep(PIECE_PAUSE_MS);
    }
    if (request.finish && !socket.destroyed) socket.end();
  })();

  const deadline = started + deadlineMs;
  for (;;) {
    const parsed = parseAnswer(received, closed, request.method === "HEAD");
    if (parsed) {
      await writing;
      return finished(parsed);
    }
    if (closed) return finished({ headers: {}, body: received, problem: "unanswered", failure });
    const left = deadline - performance.now();
    if (left <= 0) return finished({ headers: {}, body: received, problem: "hang" });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The first final answer in `bytes`, once it is complete. */
function parseAnswer(bytes: Buffer, closed: boolean, head: boolean): Omit<Answer, "ms"> | undefined {
  let offset = 0;
  for (;;) {
    const end = bytes.indexOf("\r\n\r\n", offset);
    if (end < 0) return undefined;
    const lines = bytes.subarray(offset, end).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1]);
    if (!Number.isInteger(status)) return { status: undefined, headers: {}, body: bytes, problem: "unanswered" };
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const start = end + 4;
    if (status >= 100 && status < 200) {
      offset = start;
      continue;
    }
    if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
      const body = dechunk(bytes.subarray(start));
      return body ? { status, headers, body } : undefined;
    }
    if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (bytes.length - start < length)
        return closed ? { status, headers, body: bytes.subarray(start), problem: "unanswered" } : undefined;
      return { status, headers, body: bytes.subarray(start, start + length) };
    }
    return closed ? { status, headers, body: bytes.subarray(start) } : undefined;
  }
}

/** A complete chunked body, decoded; undefined while it is not complete. */
function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", offset);
    if (lineEnd < 0) return undefined;
    const size = parseInt(bytes.subarray(offset, lineEnd).toString("latin1"), 16);
    if (size === 0) return bytes.indexOf("\r\n", lineEnd + 2) >= 0 ? Buffer.concat(parts) : undefined;
    if (bytes.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
