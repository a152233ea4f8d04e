import cluster from "node:cluster";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import pino from "pino";

/**
 * Bytes of lines held before they are written to standard output: one write(2) per some 80 request
 * lines instead of one each. A cluster worker holds 4 KiB at most (PIPE_BUF), so that what two
 * workers write to one pipe never mixes within a line.
 */
const BUFFER_BYTES = cluster.isWorker ? 4096 : 16384;

/** What a write's line says of it: the key's name (never its secret), the action, the table, the record's id, the API version. */
export interface Audited {
  key: string;
  action: "create" | "update" | "delete";
  table: string;
  id: unknown;
  version: string;
}

/** The server's log: pino's options for Fastify, and what flushes and writes its buffer. */
export interface Log {
  /** Fastify's `logger` option. */
  options: { level: string; stream: { write(line: string): void }; base: { pid: number } | null };
  /** Writes the buffer now (a clean stop, an uncaught error, a failed start; "Listening on"). */
  flush(): void;
  /** One request's line (LOG_LEVEL info and below), with its write's audit fields if it wrote. */
  request(request: FastifyRequest, reply: FastifyReply, write: Audited | undefined): void;
  /**
   * A write's line of its own, with the request's id, whatever LOG_LEVEL is: where requests are not
   * logged (above info), and for each write of a batch.
   */
  audit(request: FastifyRequest, write: Audited): void;
}

/** Requests whose lines are held as their fields (LINE_FIELDS each) before they are made into lines. */
const HELD_REQUESTS = 100;
const LINE_FIELDS = 7;
/**
 * Characters of made lines handed to the buffer at a time: half its size, as a line's bytes may be up
 * to twice its characters (a request target's bytes from 0x80 on are one character each, two in UTF-8).
 */
const CHUNK_CHARS = BUFFER_BYTES / 2;

/**
 * JSON lines on standard output, as pino writes them, held in a buffer of BUFFER_BYTES that is
 * written when it is full, when a line has waited LOG_FLUSH_MS (a timer that keeps no process
 * alive), and before the process exits however it exits, except by a signal it cannot catch
 * (`kill -9`: lost are the lines of the last LOG_FLUSH_MS, BUFFER_BYTES at most). LOG_FLUSH_MS=0:
 * no buffer, each line written as it is logged.
 *
 * A request's line (a write's too, AUDIT_LOG) is held as its fields and made with the other held
 * ones, up to HELD_REQUESTS at a time, when the buffer is written or another line is logged (lines
 * keep their order): in one loop, handed to the buffer a few kilobytes at a time, rather than one
 * line at each request's end.
 *
 * The lines carry no hostname and no pid, which never change within a process; a cluster worker's
 * carry its pid, which tells the workers apart.
 */
export function openLog({ logLevel, logFlushMs }: { logLevel: string; logFlushMs: number }): Log {
  const buffered = logFlushMs > 0;
  // Whole lines as buffers: the buffer's size is then summed, not measured again at every line.
  const output = pino.destination({
    dest: 1,
    sync: true,
    contentMode: "buffer",
    ...(buffered && { minLength: BUFFER_BYTES - 1, maxWrite: BUFFER_BYTES }),
  });
  const pid = cluster.isWorker ? process.pid : undefined;
  const bindings = pid === undefined ? "" : `,"pid":${pid}`;
  const held: unknown[] = [];
  const put = (lines: string) => void output.write(Buffer.from(lines) as unknown as string);
  const makeHeld = () => {
    let lines = "";
    for (let at = 0; at < held.length; at += LINE_FIELDS) {
      const head = requestHead(
        held[at] as number,
        bindings,
        held[at + 1],
        held[at + 2],
        held[at + 3] as string,
        held[at + 4],
        held[at + 5] as number,
      );
      const audit = held[at + 6] as Audited | undefined;
      const line = audit === undefined ? `${head},"msg":"request"}\n` : `${head},${auditFields(audit)}}\n`;
      if (lines.length + line.length > CHUNK_CHARS && lines !== "") {
        put(lines);
        lines = "";
      }
      lines += line;
    }
    held.length = 0;
    if (lines !== "") put(lines);
  };
  const write = (line: string) => {
    if (held.length > 0) makeHeld();
    put(line);
  };
  const flush = () => {
    try {
      makeHeld();
      output.flushSync();
    } catch {
      // Standard output is closed: nothing can be written any more.
    }
  };
  if (buffered) setInterval(flush, logFlushMs).unref();
  // After an uncaught error and process.exit() alike; a clean stop flushes before that.
  process.on("exit", flush);
  return {
    options: { level: logLevel, stream: { write }, base: pid === undefined ? null : { pid } },
    flush,
    request(request, reply, audit) {
      held.push(Date.now(), request.id, request.method, request.url, reply.statusCode, reply.elapsedTime, audit);
      // LOG_FLUSH_MS=0: made and written at once, as every other line.
      if (!buffered || held.length >= HELD_REQUESTS * LINE_FIELDS) makeHeld();
    },
    audit(request, audit) {
      write(
        `{"level":30,"time":${Date.now()}${bindings},"reqId":${JSON.stringify(request.id)},${auditFields(audit)}}\n`,
      );
    },
  };
}

/** A write's fields, ending its line, as `log.info({ …, key, action, table, id, version }, "write")` writes them. */
function auditFields({ key, action, table, id, version }: Audited): string {
  return (
    `"key":${JSON.stringify(key)},"action":"${action}","table":${JSON.stringify(table)},` +
    `"id":${JSON.stringify(id)},"version":${JSON.stringify(version)},"msg":"write"`
  );
}

/**
 * A request line's start, exactly as `log.info({ reqId, method, path, status, ms }, "request")` writes
 * it (a write's line goes on with the key's name, the action, the table, the id and the version), made
 * as one template string: pino's general serializer costs more than the line's write. The path is the
 * URL without its query string; never a header, so never the key.
 */
function requestHead(
  time: number,
  bindings: string,
  id: unknown,
  method: unknown,
  url: string,
  status: unknown,
  elapsed: number,
): string {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  const ms = Math.round(elapsed * 10) / 10;
  return (
    `{"level":30,"time":${time}${bindings},"reqId":${JSON.stringify(id)},` +
    `"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms}`
  );
}

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type Bindings = Parameters<FastifyBaseLogger["child"]>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger["child"]>[1]>;

/**
 * Fastify's `childLoggerFactory`: `request.log` is the server's logger with the request's id, whose
 * pino child is made the first time the request logs at an enabled level (an error, a warning,
 * your code's lines), not for every request: most never log but their request line.
 */
export const requestLog: NonNullable<FastifyServerOptions["childLoggerFactory"]> = (logger, bindings, options) =>
  new RequestLog(logger, bindings, options) as unknown as FastifyBaseLogger;

class RequestLog {
  #parent: FastifyBaseLogger;
  #bindings: Bindings;
  #options: ChildOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #log(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#log.level = level;
  }

  fatal(...args: unknown[]) {
    this.#write("fatal", args);
  }
  error(...args: unknown[]) {
    this.#write("error", args);
  }
  warn(...args: unknown[]) {
    this.#write("warn", args);
  }
  info(...args: unknown[]) {
    this.#write("info", args);
  }
  debug(...args: unknown[]) {
    this.#write("debug", args);
  }
  trace(...args: unknown[]) {
    this.#write("trace", args);
  }
  silent() {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#log.child(bindings, options);
  }

  #write(level: Level, args: unknown[]) {
    // A line below the level is dropped without making the child.
    const { values } = pino.levels;
    if (this.#child === undefined && values[level]! < (values[this.level] ?? Infinity)) return;
    const log = this.#log;
    (log[level] as (...args: unknown[]) => void).apply(log, args);
  }
}
