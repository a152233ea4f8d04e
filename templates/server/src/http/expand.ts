import type { FastifyReply, FastifyRequest } from "fastify";
import { scopeAllows } from "../api-keys.js";
import { after, found } from "./envelope.js";
import { Failure, invalid } from "./errors.js";
import type { ListQuery } from "./list.js";
import { jsonBatch, streamedList, WHOLE_TABLE } from "./stream.js";

type Awaitable<T> = T | Promise<T>;
type Values = Record<string, unknown>;

/**
 * A relation a table's records can embed with `expand`, as one API version has it: the record a
 * reference field names (`one`: that field's name in the version), or at most 100 records of
 * another table that refer to each record, in id order (`many`: their reference field, as stored).
 */
export type Relation = { table: string; one: string } | { table: string; many: string };

/** The relations of each table of a version, by table and name (src/relations.ts). */
export type VersionRelations = Record<string, Record<string, Relation>>;

/** The reads `expand` makes of a table: one statement each, for a whole page of records. */
export interface RelatedReads {
  /** The records with these ids. */
  withIds(ids: unknown[]): Awaitable<Values[]>;
  /** At most 100 records referring to each of these ids through `field`, in id order. */
  referring(field: string, ids: unknown[]): Awaitable<Values[]>;
}

/** What a request expands: each relation's name, and what to expand in its records. */
export type ExpandTree = Map<string, ExpandTree>;

/** How deep `expand` nests: `comments.post.user`. */
export const MAX_EXPAND_DEPTH = 3;

/** A table's relations in a version: how `expand` is read, and how records are given their related ones. */
export interface Related {
  /** `expand=user,comments.user` as a tree; every problem is added to `problems`. */
  parse(text: string, problems: string[]): ExpandTree | undefined;
  /**
   * Refuses (403) what the request's key may not read: a key made by `tablegen keys new` expands
   * a relation only where its scope lets it show the record a reference names (`one`), or list
   * the records referring to one (`many`).
   */
  allow(request: FastifyRequest, tree: ExpandTree): void;
  /**
   * The records (the table's, as the version answers them) with their related records embedded:
   * the array given, each record replaced by a copy with its relations.
   */
  expand<Row extends object>(records: Row[], tree: ExpandTree): Awaitable<Row[]>;
}

/**
 * The relations of a version's tables, reading from the store's tables (`tables`); records of a
 * table the version answers under other names (`renamed`: API name → stored name) are answered so.
 * Each relation costs one statement per level for all the records of a page, never one per record.
 */
export function relatedRecords(
  tables: Record<string, RelatedReads>,
  version: string,
  relations: VersionRelations,
  renamed: Record<string, Record<string, string>> = {},
): (table: string) => Related {
  const converters = new Map(
    Object.entries(renamed).map(([table, fields]) => {
      const names = Object.entries(fields);
      return [
        table,
        (row: Values) => {
          const record: Values = {};
          for (const [name, column] of names) record[name] = row[column];
          return record;
        },
      ];
    }),
  );
  const asApi = (table: string, rows: Values[]) => {
    const convert = converters.get(table);
    return convert ? rows.map(convert) : rows;
  };
  const relationsOf = (table: string) => (Object.hasOwn(relations, table) ? relations[table]! : {});

  function parse(table: string, text: string, problems: string[]): ExpandTree | undefined {
    const tree: ExpandTree = new Map();
    const seen = new Set<string>();
    for (const item of text.split(",")) {
      if (seen.has(item)) {
        problems.push(`expand names ${item} twice`);
        continue;
      }
      seen.add(item);
      const names = item.split(".");
      if (names.length > MAX_EXPAND_DEPTH) {
        problems.push(`expand ${item} is deeper than ${MAX_EXPAND_DEPTH} levels`);
        continue;
      }
      // Each name a relation of the table the name before it expands into; only a known path is added.
      const relationsOnPath: Relation[] = [];
      let on = table;
      for (const name of names) {
        const relation = Object.hasOwn(relationsOf(on), name) ? relationsOf(on)[name]! : undefined;
        if (!relation) break;
        relationsOnPath.push(relation);
        on = relation.table;
      }
      if (relationsOnPath.length < names.length) {
        problems.push(`unknown expand name ${item || "(empty)"}`);
        continue;
      }
      let node = tree;
      for (const name of names) {
        let child = node.get(name);
        if (!child) node.set(name, (child = new Map()));
        node = child;
      }
    }
    return tree;
  }

  function expand(table: string, records: Values[], tree: ExpandTree): Awaitable<void> {
    if (records.length === 0 || tree.size === 0) return;
    // Each record is replaced by a copy with a key for each relation, in the order `expand` names
    // them, before any is read: the reads run side by side and may end in any order, the answer's
    // keys may not. Copies, built alike from an empty object, rather than keys added to the rows
    // read: PostgreSQL's driver makes each row by spreading a template, and such rows given more
    // keys are slow to serialize (the copies cut an expanded page's CPU by about a quarter).
    const empty = [...tree.keys()].map((name) => [name, "one" in relationsOf(table)[name]!] as const);
    records.forEach((record, index) => {
      const copy: Values = {};
      for (const key in record) copy[key] = record[key];
      for (const [name, one] of empty) copy[name] = one ? null : [];
      records[index] = copy;
    });
    // The related records are expanded in turn (replaced by their copies) before they are placed.
    const steps: Awaitable<void>[] = [];
    for (const [name, nested] of tree) {
      const relation = relationsOf(table)[name]!;
      const reads = tables[relation.table]!;
      if ("one" in relation) {
        const key = relation.one;
        const ids = [...new Set(records.map((record) => record[key]).filter((id) => id !== null && id !== undefined))];
        steps.push(
          chain(ids.length > 0 ? reads.withIds(ids) : [], (rows) => {
            const related = asApi(relation.table, rows);
            return chain(expand(relation.table, related, nested), () => {
              const byId = new Map(related.map((record) => [record.id, record]));
              for (const record of records) record[name] = byId.get(record[key]) ?? null;
            });
          }),
        );
      } else {
        const column = relation.many;
        const ids = records.map((record) => record.id);
        steps.push(
          chain(reads.referring(column, ids), (rows) => {
            const related = asApi(relation.table, rows);
            return chain(expand(relation.table, related, nested), () => {
              const byParent = new Map<unknown, Values[]>();
              rows.forEach((row, index) => {
                const list = byParent.get(row[column]);
                if (list) list.push(related[index]!);
                else byParent.set(row[column], [related[index]!]);
              });
              for (const record of records) record[name] = byParent.get(record.id) ?? [];
            });
          }),
        );
      }
    }
    const waiting = steps.filter((step) => step instanceof Promise);
    if (waiting.length > 0) return Promise.all(waiting).then(() => undefined);
  }

  function allow(request: FastifyRequest, table: string, tree: ExpandTree): void {
    const key = request.apiKey;
    if (key === undefined) return;
    for (const [name, nested] of tree) {
      const relation = relationsOf(table)[name]!;
      const action = "one" in relation ? "show" : "list";
      if (!scopeAllows(key.scope, { kind: "table", name: relation.table, action, version })) {
        const pinned = key.scope.some((entry) => entry.version !== undefined);
        throw new Failure(403, `This key may not ${action} ${relation.table}${pinned ? ` in ${version}` : ""}.`);
      }
      allow(request, relation.table, nested);
    }
  }

  return (table) => ({
    parse: (text, problems) => parse(table, text, problems),
    allow: (request, tree) => allow(request, table, tree),
    expand: <Row extends object>(records: Row[], tree: ExpandTree) =>
      after(expand(table, records as Values[], tree), () => records),
  });
}

/** An answer already in JSON: records with related ones embedded are more than the route's schema says. */
const json = (reply: FastifyReply, answer: unknown) =>
  reply.type("application/json; charset=utf-8").send(JSON.stringify(answer));

/** `expand` of a show's query string, if it has one; a problem with it is a 400. */
export function expandOfShow(query: unknown, related: Related): ExpandTree | undefined {
  const text = (query as Record<string, unknown> | undefined)?.expand;
  if (text === undefined) return undefined;
  const problems: string[] = [];
  const tree = typeof text === "string" ? related.parse(text, problems) : problems.push("expand must be given once");
  if (problems.length > 0 || typeof tree !== "object") throw invalid(problems);
  return tree;
}

/** A show's answer with the record's related records. */
export function expandedShow(
  reply: FastifyReply,
  record: Values | undefined,
  tree: ExpandTree,
  related: Related,
  missing: () => never,
) {
  if (record === undefined) return missing();
  return after(related.expand([record], tree), ([expanded]) => json(reply, found(expanded)));
}

/** What a list route reads its records with. */
interface Pages {
  page(query: ListQuery): Awaitable<{ records: Values[]; more: boolean; total?: number }>;
}

/**
 * A list's answer with each record's related records: a page (with its `X-Total-Count` and `Link`
 * as without `expand`), or the whole table, streamed a batch at a time, each batch expanded.
 */
export function expandedList(
  reply: FastifyReply,
  table: Pages,
  query: ListQuery & { expand: ExpandTree },
  related: Related,
  nextPage: (lastId: unknown) => string,
) {
  const tree = query.expand;
  if (query.whole) {
    const batch = (after: unknown) =>
      chain(
        table.page(after === undefined ? WHOLE_TABLE : { ...WHOLE_TABLE, after: after as string | number }),
        (page) => chain(related.expand(page.records, tree), () => page),
      );
    return after(batch(undefined), (first) => {
      if (!first.more) return json(reply, found(first.records));
      return reply
        .type("application/json; charset=utf-8")
        .send(
          streamedList(jsonBatch(first.records as { id: string | number }[]), (id) =>
            after(batch(id), (page) => jsonBatch(page.records as { id: string | number }[])),
          ),
        );
    });
  }
  return after(table.page(query), (page) =>
    after(related.expand(page.records, tree), (records) => {
      if (page.total !== undefined) reply.header("x-total-count", page.total);
      if (page.more) reply.header("link", `<${nextPage(records.at(-1)!.id)}>; rel="next"`);
      return json(reply, found(records));
    }),
  );
}

/** `after`, for a value that is itself maybe a promise. */
const chain = <T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> =>
  value instanceof Promise ? value.then(next) : next(value);
