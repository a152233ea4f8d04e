import http, { type IncomingMessage, type RequestListener } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Config } from "../config.js";

/** How often Node checks the headers and request timeouts of open connections, and createServer stalled ones. */
const CHECK_INTERVAL_MS = 1000;
/** How long a refused connection stays open after its answer, for what the client is still sending. */
const LINGER_MS = 1000;

/**
 * The HTTP(S) server, every phase of a connection bounded by the settings of config.ts: its
 * headers and the whole request must arrive in time (else a 408), a connection on which nothing
 * moves is closed, and so is a keep-alive connection left idle.
 */
export function createServer(config: Config, handler: RequestListener): http.Server | https.Server {
  const { headersMs, requestMs, connectionMs, keepAliveMs } = config.timeouts;
  const options: http.ServerOptions = {
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    keepAliveTimeout: keepAliveMs,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    // Checked below, to answer in the envelope: Node's own answer is an empty 400.
    requireHostHeader: false,
  };
  const route: RequestListener = (request, response) => {
    // An HTTP/1.1 request must name its host (RFC 9112, section 3.2).
    if (request.httpVersion === "1.1" && request.headers.host === undefined) return refuse(response);
    handler(request, response);
  };
  const server = config.tls
    ? https.createServer({ ...config.tls, ...options }, route)
    : http.createServer(options, route);
  closeStalled(server, config.tls ? "secureConnection" : "connection", connectionMs);
  // A client may close its side once its request is sent (`printf … | nc`): it still gets its answer,
  // where Node's default closes the connection at once and drops the request (a long-standing
  // property of Node's HTTP server, which its types leave out).
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // An `Expect` other than 100-continue is ignored (RFC 9110 allows it), where Node would answer an empty 417.
  server.on("checkExpectation", route);
  server.on("connect", (request: IncomingMessage, socket: Duplex) => routeConnect(server, request, socket as Socket));
  return server;
}

/**
 * Closes a connection on which no byte has moved either way for `idleMs` (a client that stops
 * sending or reading), unless it waits between requests, which is the keep-alive timeout's:
 * Node's timer of that wait is set on the socket then (`socket.timeout`). One sweep over the open
 * connections every CHECK_INTERVAL_MS, as Node checks its headers and request timeouts, rather
 * than a timer per connection that every request would restart.
 */
function closeStalled(server: http.Server | https.Server, event: "connection" | "secureConnection", idleMs: number) {
  const seen = new Map<Socket, { moved: number; since: number }>();
  server.on(event, (socket: Socket) => {
    seen.set(socket, { moved: 0, since: Date.now() });
    socket.once("close", () => seen.delete(socket));
  });
  const sweep = () => {
    const now = Date.now();
    for (const [socket, last] of seen) {
      // Bytes read, and bytes handed to the system (not those still waiting in the socket's buffer).
      const moved = socket.bytesRead + socket.bytesWritten - socket.writableLength;
      if (moved !== last.moved || socket.timeout) {
        last.moved = moved;
        last.since = now;
      } else if (now - last.since >= idleMs) socket.destroy();
    }
  };
  const timer = setInterval(sweep, Math.min(CHECK_INTERVAL_MS, idleMs)).unref();
  server.once("close", () => clearInterval(timer));
}

/** Answers a malformed request that Node's parser let through, and closes its connection. */
function refuse(response: http.ServerResponse): void {
  const [status, message] = answerOf("");
  const body = JSON.stringify({ success: false, message, data: [] });
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  response.end(body);
}

/** What Node's HTTP layer refuses before a request reaches Fastify, as the envelope's status and message. */
function answerOf(code: string): [number, string] {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request timeout"];
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request header fields too large"];
    default:
      return [400, "Invalid request: malformed HTTP request"];
  }
}

/**
 * Answers what Node's HTTP parser refuses (a malformed request line or header, impossible framing,
 * an unknown method, headers too large) and requests that time out, in the envelope like every
 * other answer, then closes the connection: after such an error its bytes cannot be trusted. A
 * connection whose answer has begun, or that the client closed, is only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Answered already: what the client still sends fails to parse again until the socket closes.
  if (socket.writableEnded) return;
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = answerOf(error.code ?? "");
  const body = JSON.stringify({ success: false, message, data: [] });
  const head = [
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  // Closed at once, a connection the client is still writing to would be reset, which can discard
  // the answer before the client reads it: its bytes are let in (and ignored) for a moment first.
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * Node hands a CONNECT request to the server's 'connect' listener, not to Fastify, and without a
 * listener closes it unanswered. No route serves CONNECT, so it is routed like any other request
 * (the key, then 404 or 405), and the connection is closed after the answer.
 */
function routeConnect(server: http.Server | https.Server, request: IncomingMessage, socket: Socket): void {
  const response = new http.ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket);
  response.on("finish", () => socket.destroySoon());
  server.emit("request", request, response);
}
