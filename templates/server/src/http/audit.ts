import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import { after } from "./envelope.js";
import { numberId, uuidId } from "./ids.js";

type Awaitable<T> = T | Promise<T>;

/** A table's writes as its routes call them (src/hooked.ts). */
interface RoutedWrites {
  create(input: never, request: FastifyRequest): Awaitable<{ id: unknown }>;
  update(rawId: string, changes: never, request: FastifyRequest): Awaitable<{ id: unknown } | undefined>;
  remove(rawId: string, request: FastifyRequest): Awaitable<boolean>;
}

/** The name audit lines give API_SIGNATURE_KEY, the key with full access. */
export const FULL_KEY = "API_SIGNATURE_KEY";

/**
 * The tables, each of whose writes (create, update, delete) logs one line once it is done: the
 * request's id, the key's name (never its secret), the action, the table, the record's id and the
 * API version. Written at info whatever LOG_LEVEL is (AUDIT_LOG=off writes none); a write that
 * fails, or finds no record, logs nothing.
 */
export function audited<Tables extends Record<string, RoutedWrites>>(tables: Tables, log: FastifyBaseLogger): Tables {
  const audit = log.child({}, { level: "info" });
  const line = (request: FastifyRequest, action: string, table: string, id: unknown) => {
    const version = request.routeOptions.url!.split("/")[3];
    const key = request.apiKey?.name ?? FULL_KEY;
    audit.info({ reqId: request.id, key, action, table, id, version }, "write");
  };
  const entries = Object.entries(tables).map(([name, table]) => {
    const writes: RoutedWrites = {
      create: (input, request) =>
        after(table.create(input, request), (record) => {
          line(request, "create", name, record.id);
          return record;
        }),
      update: (rawId, changes, request) =>
        after(table.update(rawId, changes, request), (record) => {
          if (record !== undefined) line(request, "update", name, record.id);
          return record;
        }),
      remove: (rawId, request) =>
        after(table.remove(rawId, request), (removed) => {
          if (removed) line(request, "delete", name, numberId(rawId) ?? uuidId(rawId) ?? rawId);
          return removed;
        }),
    };
    return [name, { ...table, ...writes }];
  });
  return Object.fromEntries(entries) as Tables;
}
