import type { FastifyRequest } from "fastify";
import type { Audited, Log } from "../log.js";
import { after } from "./envelope.js";

type Awaitable<T> = T | Promise<T>;

/** A table's writes as its routes call them (src/hooked.ts). */
interface RoutedWrites {
  create(input: never, request: FastifyRequest): Awaitable<{ id: unknown }>;
  update(rawId: string, changes: never, request: FastifyRequest): Awaitable<{ id: unknown } | undefined>;
  remove(rawId: string, request: FastifyRequest): Awaitable<boolean>;
  /** The table's id from a path's text, as its records hold it. */
  parseId(rawId: string): unknown;
}

/** What a write's log line says of it (src/log.ts). */
export type Write = Audited;

/** The name audit lines give API_SIGNATURE_KEY, the key with full access. */
export const FULL_KEY = "API_SIGNATURE_KEY";

/**
 * The tables, each of whose writes (create, update, delete) is told to `done` once it is done; a
 * write that fails, or finds no record, is not.
 */
export function audited<Tables extends Record<string, RoutedWrites>>(
  tables: Tables,
  done: (request: FastifyRequest, write: Write) => void,
): Tables {
  const tell = (request: FastifyRequest, action: Write["action"], table: string, id: unknown) =>
    done(request, {
      key: request.apiKey?.name ?? FULL_KEY,
      action,
      table,
      id,
      version: request.routeOptions.url!.split("/")[3]!,
    });
  const entries = Object.entries(tables).map(([name, table]) => {
    const writes: Omit<RoutedWrites, "parseId"> = {
      create: (input, request) =>
        after(table.create(input, request), (record) => {
          tell(request, "create", name, record.id);
          return record;
        }),
      update: (rawId, changes, request) =>
        after(table.update(rawId, changes, request), (record) => {
          if (record !== undefined) tell(request, "update", name, record.id);
          return record;
        }),
      remove: (rawId, request) =>
        after(table.remove(rawId, request), (removed) => {
          if (removed) tell(request, "delete", name, table.parseId(rawId));
          return removed;
        }),
    };
    return [name, { ...table, ...writes }];
  });
  return Object.fromEntries(entries) as Tables;
}

/**
 * Where writes are logged: one line per write, `"msg":"write"`, whatever LOG_LEVEL is. Where
 * requests are logged (LOG_LEVEL info and below), a write's request line is that line: it says
 * the write's fields beside the request's (`write` gives them to it, `of` finds them), so a write
 * costs no second line; elsewhere the write is logged at once, with the request's id.
 */
export function writeLog(log: Pick<Log, "audit">, withRequests: boolean) {
  const writes = new WeakMap<FastifyRequest, Write>();
  return {
    write: withRequests
      ? (request: FastifyRequest, write: Write) => void writes.set(request, write)
      : (request: FastifyRequest, write: Write) => log.audit(request, write),
    of: (request: FastifyRequest) => writes.get(request),
    /** A write of a request that makes several (a batch): a line of its own, with the request's id. */
    each: (request: FastifyRequest, write: Write) => log.audit(request, write),
  };
}
