import type { FastifyPluginAsync, FastifyRequest, FastifySchema } from "fastify";
import { scopeAllows } from "../api-keys.js";
import type { Db } from "../db.js";
import type { TransactionWrites } from "../hooked.js";
import type { TransactionDb, Transactions } from "../transaction.js";
import type { Write } from "./audit.js";
import { FULL_KEY } from "./audit.js";
import { Failure, failureFor, invalid, notFoundFailure } from "./errors.js";
import { describeValidation } from "./validation.js";

type Values = Record<string, unknown>;

/** The most operations a batch takes. */
export const MAX_OPERATIONS = 1000;

export const BATCH_DONE = "Batch completed successfully.";

/** A table as a batch of a version writes it: its route schemas, its names there, its writes in a transaction. */
export interface BatchTable {
  schemas: { create: FastifySchema; update: FastifySchema };
  /** For a table whose version differs from how it is stored: API name → stored name, and its creates' defaults. */
  version?: { fields: Record<string, string>; defaults: Values };
  table: { inTransaction: TransactionWrites<never, unknown>; parseId(rawId: string): unknown };
}

type Action = "create" | "update" | "delete";
const ACTIONS: readonly string[] = ["create", "update", "delete"];

/** An operation as the body gives it, its shape checked. */
interface Operation {
  action: Action;
  table: string;
  id?: unknown;
  data?: Values;
}

/** An operation's error that is no answer of the contract yet: a database's, or a hook's throw. */
class Unexplained extends Error {
  constructor(
    readonly error: unknown,
    readonly index: number,
    readonly request: FastifyRequest,
  ) {
    super("an operation of the batch failed");
  }
}

/** `{"$ref": "0.id"}`: a value of an earlier operation's result. */
const isRef = (value: unknown): value is { $ref: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, "$ref");
const REF = /^(0|[1-9][0-9]*)\.([a-z][a-z0-9_]*)$/;

/**
 * `POST /<project>/<version>/batch`: creates, updates and deletes of the version's tables, all in
 * one transaction, each validated by its route's own schema (the very validator Fastify compiled
 * for it), with its table's hooks and its key's scope, as if sent alone. A failure writes nothing
 * and is answered with the status the operation alone would get, its message prefixed with
 * `operations[<index>]: `; a malformed batch is one 400 naming every problem where it is.
 */
export const batchRoute: FastifyPluginAsync<{
  project: string;
  version: string;
  transactions: Transactions;
  tables: Record<string, BatchTable>;
  audit?: (request: FastifyRequest, write: Write) => void;
}> = async (app, { project, version, transactions, tables, audit }) => {
  const stored = (fields: Record<string, string>, values: Values, base: Values = {}) => {
    const input: Values = { ...base };
    for (const [name, value] of Object.entries(values)) input[fields[name]!] = value;
    return input;
  };
  const answered = (fields: Record<string, string> | undefined, row: unknown) => {
    if (!fields || row === undefined) return row;
    const record: Values = {};
    for (const [name, column] of Object.entries(fields)) record[name] = (row as Values)[column];
    return record;
  };

  app.post("/batch", { config: { keys: "any" } }, async (request, reply) => {
    const operations = parseBatch(request.body, tables, version);
    // Each operation is answered as its own route would be: its hooks, messages and audit line see
    // the request as the route's (`/<project>/<table>/<version>/<action>`).
    const routeRequest = (operation: Operation) =>
      Object.create(request, {
        routeOptions: {
          value: { ...request.routeOptions, url: `/${project}/${operation.table}/${version}/${operation.action}` },
        },
      }) as FastifyRequest;
    let writes: [FastifyRequest, Write][] = [];
    const key = request.apiKey?.name ?? FULL_KEY;
    const work = (grouped: boolean) => async (db: Db, handle: TransactionDb) => {
      writes = [];
      const results: unknown[] = [];
      const done = (index: number, routed: FastifyRequest, result: unknown) => {
        const operation = operations[index]!;
        results.push(result);
        const id = operation.action === "delete" ? (result as { id: unknown }).id : (result as Values).id;
        writes.push([routed, { key, action: operation.action, table: operation.table, id, version }]);
      };
      for (let index = 0; index < operations.length;) {
        // Creates that follow one another in a table without hooks, none naming another's result,
        // are written together (PostgreSQL: one statement); a failure among them runs the batch
        // again one operation at a time, which finds the one that failed.
        const size = grouped ? groupAt(operations, index, tables) : 1;
        const routed = operations.slice(index, index + size).map(routeRequest);
        const steps: Prepared[] = [];
        for (let offset = 0; offset < size; offset++) {
          steps.push(
            await failing(index + offset, routed[offset]!, () =>
              prepare(operations[index + offset]!, results, routed[offset]!),
            ),
          );
        }
        if (size > 1) {
          const { inTransaction, fields } = steps[0]!;
          let rows: Values[];
          try {
            rows = await inTransaction.createMany!(
              db,
              steps.map((step) => step.input!),
            );
          } catch (error) {
            throw new Unexplained(error, index, routed[0]!);
          }
          rows.forEach((row, offset) => done(index + offset, routed[offset]!, answered(fields, row)));
        } else {
          done(index, routed[0]!, await failing(index, routed[0]!, () => execute(steps[0]!, db, handle, routed[0]!)));
        }
        index += size;
      }
      return results;
    };
    // First one round trip a statement (PostgreSQL); a failure the answers of the contract do not
    // explain (a constraint whose explanation needs a read, which a failed statement's transaction
    // can no longer make) runs the batch again, each statement behind a savepoint, to answer it as
    // the operation's route would. On SQLite both are the same.
    let results: unknown[];
    try {
      results = (await transactions.run(work(true), { savepoints: false })) as unknown[];
    } catch (error) {
      if (!(error instanceof Unexplained)) throw error;
      try {
        results = (await transactions.run(work(false))) as unknown[];
      } catch (again) {
        if (!(again instanceof Unexplained)) throw again;
        const failure = failureFor(again.error, again.request);
        // The server's own failures (500, 503) are the batch's, whichever operation met them.
        if (failure.statusCode >= 500) throw failure;
        throw new Failure(failure.statusCode, `operations[${again.index}]: ${failure.messageFor(again.request)}`);
      }
    }
    if (audit) for (const [routed, write] of writes) audit(routed, write);
    return reply
      .type("application/json; charset=utf-8")
      .send(JSON.stringify({ success: true, message: BATCH_DONE, data: results }));
  });

  /** What an operation's failure is answered with: its route's status and message, prefixed with its index. */
  async function failing<T>(index: number, routed: FastifyRequest, step: () => T | Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof Failure)) throw new Unexplained(error, index, routed);
      const failure = failureFor(error, routed);
      // A hook's reject() with a status that is no failure is the server's 500, as alone.
      if (failure.statusCode >= 500 && failure !== error) throw failure;
      throw new Failure(failure.statusCode, `operations[${index}]: ${failure.messageFor(routed)}`);
    }
  }

  /** An operation checked as its route checks a request: its key's scope, its `$ref`s resolved, its route's validation. */
  function prepare(operation: Operation, results: unknown[], request: FastifyRequest): Prepared {
    const { action, table: name } = operation;
    const key = request.apiKey;
    if (key && !scopeAllows(key.scope, { kind: "table", name, action, version })) {
      const pinned = key.scope.some((entry) => entry.version !== undefined);
      throw new Failure(403, `This key may not ${action} ${name}${pinned ? ` in ${version}` : ""}.`);
    }
    const resolve = (value: unknown, at: string) => {
      if (!isRef(value)) return value;
      const [, from, field] = REF.exec(String(value.$ref))!;
      const result = results[Number(from)] as Values | null | undefined;
      if (result === null || typeof result !== "object" || !Object.hasOwn(result, field!))
        throw invalid([`${at} refers to ${String(value.$ref)}, which operation ${from} did not answer`]);
      return result[field!];
    };
    const table = tables[name]!;
    const { inTransaction } = table.table as { inTransaction: TransactionWrites<Values, Values> };
    const idOf = (rawId: string) => table.table.parseId(rawId);
    const fields = table.version?.fields;
    const rawId = operation.id === undefined ? undefined : String(resolve(operation.id, "id"));
    // A bigint id (the table reads it as a string) given as a JSON number beyond 2^53 has lost digits
    // already, in the JSON parser: refused, never guessed.
    if (typeof operation.id === "number" && !Number.isSafeInteger(operation.id) && typeof idOf(rawId!) === "string")
      throw invalid(["id must be a 64-bit integer as a string of digits"]);
    let input: Values | undefined;
    if (operation.data !== undefined) {
      const data: Values = {};
      for (const [field, value] of Object.entries(operation.data)) data[field] = resolve(value, field);
      const schema = (action === "create" ? table.schemas.create : table.schemas.update).body as object;
      const validate = request.compileValidationSchema(schema, "body");
      if (!validate(data)) throw invalid(describeValidation(validate.errors ?? [], "body"));
      // The version's names as stored, and a create given the version's defaults.
      input = !fields ? data : stored(fields, data, action === "create" ? table.version!.defaults : {});
    }
    return { action, inTransaction, idOf, fields, rawId, input };
  }

  /** An operation's write, in the batch's transaction, answered as its route answers it. */
  async function execute(step: Prepared, db: Db, handle: TransactionDb, request: FastifyRequest): Promise<unknown> {
    const { action, inTransaction, idOf, fields, rawId, input } = step;
    switch (action) {
      case "create":
        return answered(fields, await inTransaction.create(db, handle, input!, request));
      case "update": {
        const record = await inTransaction.update(db, handle, rawId!, input!, request);
        if (record === undefined) throw notFoundFailure();
        return answered(fields, record);
      }
      default:
        if (!(await inTransaction.remove(db, handle, rawId!, request))) throw notFoundFailure();
        return { id: idOf(rawId!) };
    }
  }
};

/** An operation ready to run. */
interface Prepared {
  action: Action;
  inTransaction: TransactionWrites<Values, Values>;
  /** The table's id from text, as its records hold it: a delete's result. */
  idOf(rawId: string): unknown;
  fields: Record<string, string> | undefined;
  rawId: string | undefined;
  input: Values | undefined;
}

/**
 * How many operations from `start` on are creates of one table without hooks (it can create many
 * at once), none naming the result of another of them.
 */
function groupAt(operations: Operation[], start: number, tables: Record<string, BatchTable>): number {
  const first = operations[start]!;
  if (first.action !== "create" || tables[first.table]!.table.inTransaction.createMany === undefined) return 1;
  let end = start;
  while (
    end < operations.length &&
    operations[end]!.action === "create" &&
    operations[end]!.table === first.table &&
    !Object.values(operations[end]!.data ?? {}).some(
      (value) => isRef(value) && Number(REF.exec(String(value.$ref))?.[1]) >= start,
    )
  )
    end++;
  return Math.max(1, end - start);
}

/**
 * A batch body's operations, their shape checked before anything runs: a 400 naming every problem
 * where it is (`operations[1].table: …`). What each operation's data holds is checked as it runs,
 * by its route's own validation.
 */
function parseBatch(body: unknown, tables: Record<string, BatchTable>, version: string): Operation[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid(["body must be a JSON object"]);
  const problems: string[] = [];
  for (const key of Object.keys(body)) if (key !== "operations") problems.push(`unknown field ${key}`);
  const operations = (body as { operations?: unknown }).operations;
  if (!Array.isArray(operations)) {
    problems.push(operations === undefined ? "operations is required" : "operations must be an array");
    throw invalid(problems);
  }
  if (operations.length === 0) problems.push("operations must hold at least one operation");
  if (operations.length > MAX_OPERATIONS)
    problems.push(`operations holds ${operations.length} operations, more than ${MAX_OPERATIONS}`);
  if (operations.length === 0 || operations.length > MAX_OPERATIONS) throw invalid(problems);
  operations.forEach((operation: unknown, index) => {
    const at = `operations[${index}]`;
    if (typeof operation !== "object" || operation === null || Array.isArray(operation)) {
      problems.push(`${at} must be an object`);
      return;
    }
    const { action, table, id, data } = operation as Record<string, unknown>;
    for (const key of Object.keys(operation))
      if (!["action", "table", "id", "data"].includes(key)) problems.push(`${at}: unknown field ${key}`);
    if (typeof action !== "string" || !ACTIONS.includes(action))
      problems.push(`${at}.action must be create, update or delete`);
    if (typeof table !== "string" || !Object.hasOwn(tables, table))
      problems.push(
        table === undefined ? `${at}.table is required` : `${at}.table names no table of ${version}: ${String(table)}`,
      );
    if (action === "create" && id !== undefined) problems.push(`${at}.id cannot be given to a create`);
    if ((action === "update" || action === "delete") && id === undefined) problems.push(`${at}.id is required`);
    if (id !== undefined) refProblem(id, index, `${at}.id`, problems, true);
    if (action === "delete" && data !== undefined) problems.push(`${at}.data cannot be given to a delete`);
    if ((action === "create" || action === "update") && data === undefined) problems.push(`${at}.data is required`);
    if (data !== undefined) {
      if (typeof data !== "object" || data === null || Array.isArray(data))
        problems.push(`${at}.data must be an object`);
      else for (const [field, value] of Object.entries(data)) refProblem(value, index, `${at}.data.${field}`, problems);
    }
  });
  if (problems.length > 0) throw invalid(problems);
  return operations as Operation[];
}

/** What is wrong with a `$ref` (or, for an id, a value that is no id at all). */
function refProblem(value: unknown, index: number, at: string, problems: string[], isId = false): void {
  if (!isRef(value)) {
    if (isId && typeof value !== "string" && typeof value !== "number")
      problems.push(`${at} must be an id, or {"$ref": "<index>.<field>"}`);
    return;
  }
  if (Object.keys(value).length !== 1 || typeof value.$ref !== "string") {
    problems.push(`${at} must be {"$ref": "<index>.<field>"}, naming an earlier operation's result and its field`);
    return;
  }
  const match = REF.exec(value.$ref);
  if (!match) problems.push(`${at}: $ref must be "<index>.<field>", like "0.id", not ${JSON.stringify(value.$ref)}`);
  else if (Number(match[1]) >= index)
    problems.push(
      `${at}: $ref ${value.$ref} names no earlier operation (operation ${match[1]} is not before ${index})`,
    );
}
