// `npx tsx bench/log-line.ts > <file>`: what a request's log line costs, lever by lever (issue 32),
// in CPU time per line of this one process (process.cpuUsage), the variants alternating in rounds
// so that a machine shared with other work slows them alike. Each variant writes its lines where
// the generated server writes them, to standard output (redirect it to a file, as a deployed
// server's is; the report goes to standard error). The last variant is the generated server's own
// src/log.ts (templates/server/src/log.ts). Environment: LOG_LINE_COUNT (lines per round, 100000),
// LOG_LINE_ROUNDS (7).
import { fstatSync } from "node:fs";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import pino from "pino";
import { openLog, requestLog } from "../templates/server/src/log.ts";

const COUNT = Number(process.env.LOG_LINE_COUNT || 100_000);
const ROUNDS = Number(process.env.LOG_LINE_ROUNDS || 7);
if (!fstatSync(1).isFile()) {
  console.error("redirect standard output to a file: npx tsx bench/log-line.ts > .tmp/log-line.out");
  process.exit(1);
}

/** What the request line is made of: a request of the show endpoint, as Fastify gives it. */
const request = (index: number) =>
  ({ id: `req-${index}`, method: "GET", url: `/blog/users/v1/show/${index}?fields=name` }) as FastifyRequest;
const reply = { elapsedTime: 0.4321, statusCode: 200 } as FastifyReply;

/** The line as the generated server wrote it before issue 32 (src/app.ts's onResponse hook). */
const pinoLine = (log: pino.Logger, req: FastifyRequest, withId: boolean) => {
  const path = req.url.split("?", 1)[0];
  const ms = Math.round(reply.elapsedTime * 10) / 10;
  const { method } = req;
  const status = reply.statusCode;
  if (withId) log.info({ reqId: req.id, method, path, status, ms }, "request");
  else log.info({ method, path, status, ms }, "request");
};

const HOLD = 16384;
const buffered = (options: { sync: boolean; contentMode?: "buffer" }) =>
  pino.destination({ dest: 1, minLength: HOLD - 1, maxWrite: HOLD, periodicFlush: 100, ...options });
const asBuffers = (destination: ReturnType<typeof pino.destination>) => ({
  write: (line: string) => void destination.write(Buffer.from(line) as unknown as string),
});

type Variant = { name: string; line: (index: number) => void; flush: () => void };
const variants: Variant[] = [];
{
  // Before: pino's default destination (a write(2) per line), hostname and pid, a child per request.
  const root = pino({ level: "info" }, pino.destination({ dest: 1, sync: true }));
  variants.push({
    name: "before: a child per request, a write per line, hostname and pid",
    line: (i) => pinoLine(root.child({ reqId: `req-${i}` }), request(i), false),
    flush: () => {},
  });
}
{
  const destination = buffered({ sync: false });
  const root = pino({ level: "info" }, destination);
  variants.push({
    name: "+ buffer, asynchronous (sync: false, minLength 16 KiB, strings)",
    line: (i) => pinoLine(root.child({ reqId: `req-${i}` }), request(i), false),
    flush: () => destination.flushSync(),
  });
}
{
  const destination = buffered({ sync: true });
  const root = pino({ level: "info" }, destination);
  variants.push({
    name: "+ buffer, synchronous writes of 16 KiB (strings)",
    line: (i) => pinoLine(root.child({ reqId: `req-${i}` }), request(i), false),
    flush: () => destination.flushSync(),
  });
}
{
  const destination = buffered({ sync: true, contentMode: "buffer" });
  const root = pino({ level: "info" }, asBuffers(destination));
  variants.push({
    name: "+ buffer of whole lines as Buffers (contentMode: buffer)",
    line: (i) => pinoLine(root.child({ reqId: `req-${i}` }), request(i), false),
    flush: () => destination.flushSync(),
  });
}
{
  const destination = buffered({ sync: true, contentMode: "buffer" });
  const root = pino({ level: "info" }, asBuffers(destination));
  variants.push({
    name: "+ no child per request (the root logger, reqId in the line)",
    line: (i) => pinoLine(root, request(i), true),
    flush: () => destination.flushSync(),
  });
}
{
  const destination = buffered({ sync: true, contentMode: "buffer" });
  const root = pino({ level: "info", base: null }, asBuffers(destination));
  variants.push({
    name: "+ no hostname, no pid",
    line: (i) => pinoLine(root, request(i), true),
    flush: () => destination.flushSync(),
  });
}
{
  // The line of src/log.ts, with Fastify's own child per request (before the lazy request.log).
  const log = openLog({ logLevel: "info", logFlushMs: 100 });
  const { stream, ...options } = log.options;
  const root = pino(options, stream);
  variants.push({
    name: "+ the line as one template string (a pino child per request still)",
    line: (i) => {
      const req = request(i);
      root.child({ reqId: req.id });
      log.request(req, reply, undefined);
    },
    flush: () => log.flush(),
  });
}

{
  // The generated server's own since the lazy child: request.log is src/log.ts's requestLog, whose
  // pino child is made only when the request logs; Fastify checks the object's methods (its check of
  // a childLoggerFactory's loggers).
  const log = openLog({ logLevel: "info", logFlushMs: 100 });
  const { stream, ...options } = log.options;
  const root = pino(options, stream) as unknown as FastifyBaseLogger;
  const methods = ["info", "error", "debug", "fatal", "warn", "trace", "child"] as const;
  variants.push({
    name: "generated src/log.ts: request.log made when the request logs (src/log.ts's requestLog)",
    line: (i) => {
      const req = request(i);
      const child = requestLog.call(undefined as never, root, { reqId: req.id }, {}, req.raw) as unknown as Record<
        string,
        unknown
      >;
      if (methods.some((method) => typeof child[method] !== "function")) throw new Error("not a logger");
      log.request(req, reply, undefined);
    },
    flush: () => log.flush(),
  });
}

const cpuNs = (fn: () => void) => {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / COUNT;
};
const results = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
for (const variant of variants) for (let i = 0; i < 2000; i++) variant.line(i);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) {
    const ns = cpuNs(() => {
      for (let i = 0; i < COUNT; i++) variant.line(i);
      variant.flush();
    });
    results.get(variant.name)!.push(ns);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.error(`${ROUNDS} rounds of ${COUNT} lines per variant, alternating; CPU ns per line, median (min–max)`);
for (const [name, values] of results) {
  const sorted = [...values].sort((a, b) => a - b);
  console.error(`| ${name} | ${median(values).toFixed(0)} (${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}) |`);
}
process.exit(0);
