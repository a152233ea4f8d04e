import { FORMAT_PATTERNS } from "../runtime/formats.ts";
import type { JsonSchema } from "./schemas.ts";

/**
 * The breaking-change guard: what a published version's OpenAPI document (`openapi/<version>.json`
 * as the server has it) promises that the document the manifest now produces no longer keeps, as
 * `buf breaking` and oasdiff judge it. Requests may only be accepted more widely (no removed route,
 * parameter or field, no new requirement, no narrower type, format or bound), answers only more
 * narrowly (no removed or renamed field, no wider type, no changed message or status). Driven by
 * the documents alone, `$ref`s resolved: a break inside a shared component (`PostsRecord`, the
 * `NotFound` response) is located there, once. Examples are not promises: they may change freely.
 * A format of the contract's own (`phone`, `email`) is the pattern the server checks it with: the
 * same pattern given beside it (as documents do since issue 31) adds nothing, and is not compared.
 *
 * One line per break, in the order of the published document: `<version>: <where>: <what>`.
 */
export function breakingChanges(
  published: ReadonlyMap<string, JsonSchema>,
  produced: ReadonlyMap<string, JsonSchema>,
): string[] {
  const versions = [...published.keys()].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return versions.flatMap((version) => {
    const next = produced.get(version);
    return next
      ? documentBreaks(version, published.get(version)!, next)
      : [`${version}: version removed: the manifest no longer has it`];
  });
}

/** The breaks between the published document of a version and the one produced now. */
export function documentBreaks(version: string, published: JsonSchema, produced: JsonSchema): string[] {
  const comparison = new Comparison(published, produced);
  comparison.documents();
  return [...comparison.lines].map((line) => `${version}: ${line}`);
}

type Json = JsonSchema;
type Sink = (where: string, label: string, message: string) => void;

/** Where a comparison is: the located place, the path of fields inside it, and what it describes. */
interface At {
  /** `POST /blog/posts/v1/create`, `schema PostsRecord`, `response NotFound`. */
  where: string;
  /** What the place's root is, for labels: `response 201`, `the request body`; "" when `where` says it. */
  root: string;
  path: string;
  /** A request (what the server accepts: may only widen) or an answer (what it sends: may only narrow). */
  request: boolean;
  /** An answer of a failure status: its messages may grow (a new reference's 409), not change. */
  failure: boolean;
  sink: Sink;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Bounds that narrow what a request may hold when they drop (upper) or rise (lower). */
const UPPER = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"];
const LOWER = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"];
/** Keywords the documents do not use today: any change to one counts as a break. */
const OPAQUE = ["allOf", "not", "if", "then", "else", "prefixItems", "patternProperties"];
/** Unions, compared alternative by alternative (`alternatives`). */
const UNIONS = ["anyOf", "oneOf"];

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const object = (value: unknown): Json => (isObject(value) ? value : {});
const quoted = (values: unknown[]) => values.map((value) => JSON.stringify(value)).join(", ");
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

interface Operation {
  key: string;
  path: string;
  item: Json;
  operation: Json;
}

function operations(document: Json): Operation[] {
  return Object.entries(object(document.paths)).flatMap(([path, item]) =>
    Object.entries(object(item))
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        path,
        item: object(item),
        operation: object(operation),
      })),
  );
}

class Comparison {
  /** The breaks, located, without repeats (a shared component is reported once). */
  readonly lines = new Set<string>();
  private readonly visited = new Set<string>();
  private readonly main: Sink = (where, label, message) =>
    this.lines.add(`${where ? `${where}: ` : ""}${label ? `${label} ` : ""}${message}`);

  constructor(
    private readonly old: Json,
    private readonly next: Json,
  ) {}

  documents(): void {
    const before = operations(this.old);
    const after = new Map(operations(this.next).map((operation) => [operation.key, operation]));
    const removed = before.filter(({ key }) => !after.has(key));
    const summarised = this.removedTables(removed, [...after.values()]);
    for (const { key } of removed) if (!summarised.has(key)) this.main("", `route ${key}`, "removed");
    for (const operation of before) {
      const next = after.get(operation.key);
      if (next) this.operation(operation, next);
    }
  }

  /**
   * Removed operations whose tag is a table's (its name is a segment of each of their paths) and
   * that took all of the tag's operations with them: one line for the table, not one per route.
   */
  private removedTables(removed: Operation[], kept: Operation[]): Set<string> {
    const keptTags = new Set(kept.flatMap(({ operation }) => (operation.tags as string[] | undefined) ?? []));
    const byTag = new Map<string, Operation[]>();
    for (const operation of removed) {
      const tag = (operation.operation.tags as string[] | undefined)?.[0];
      if (tag !== undefined && !keptTags.has(tag)) byTag.set(tag, [...(byTag.get(tag) ?? []), operation]);
    }
    const summarised = new Set<string>();
    for (const [tag, routes] of byTag) {
      if (routes.length < 2 || !routes.every(({ path }) => path.split("/").includes(tag))) continue;
      const paths = routes.map(({ path }) => path);
      let prefix = paths.reduce((common, path) => {
        let length = 0;
        while (length < common.length && common[length] === path[length]) length++;
        return common.slice(0, length);
      });
      prefix = prefix.slice(0, prefix.lastIndexOf("/") + 1);
      this.main("", `table ${tag}`, `removed, with its ${plural(routes.length, "route")} under ${prefix}`);
      for (const { key } of routes) summarised.add(key);
    }
    return summarised;
  }

  private operation(old: Operation, next: Operation): void {
    const where = old.key;
    this.parameters(where, parameters(this.old, old), parameters(this.next, next));
    this.requestBody(where, old.operation.requestBody, next.operation.requestBody);
    const before = object(old.operation.responses);
    const after = object(next.operation.responses);
    for (const [status, response] of Object.entries(before)) {
      if (!(status in after)) this.main(where, "", `response ${status} removed`);
      else {
        const at = { where, root: `response ${status}`, path: "", request: false, failure: !status.startsWith("2") };
        this.response(response, after[status], { ...at, sink: this.main });
      }
    }
  }

  /** The parameters of an operation; breaks that several share (a field's filters) in one line. */
  private parameters(where: string, old: Map<string, Json>, next: Map<string, Json>): void {
    const grouped = new Map<string, { place: string; label: string; message: string; names: string[] }>();
    const collect = (name: string, place: string) => (at: string, label: string, message: string) => {
      if (at !== where) return this.main(at, label, message);
      const key = JSON.stringify([place, label, message]);
      const group = grouped.get(key) ?? { place, label, message, names: [] };
      group.names.push(name);
      grouped.set(key, group);
    };
    for (const [key, parameter] of old) {
      const name = String(parameter.name);
      const place = String(parameter.in);
      const sink = collect(name, place);
      const counterpart = next.get(key);
      if (!counterpart) {
        sink(where, "", "removed");
        continue;
      }
      if (!parameter.required && counterpart.required) sink(where, "", "became required");
      const at = { where, root: "", path: "", request: true, failure: false, sink };
      this.schema(parameter.schema, counterpart.schema, at);
    }
    for (const [key, parameter] of next) {
      if (!old.has(key) && parameter.required)
        collect(String(parameter.name), String(parameter.in))(where, "", "added as required");
    }
    for (const { place, label, message, names } of grouped.values()) {
      const subject = `${place} parameter${names.length > 1 ? "s" : ""} ${quoted(names)}`;
      this.main(where, label ? `${label} of ${subject}` : subject, message);
    }
  }

  private requestBody(where: string, oldBody: unknown, nextBody: unknown): void {
    const [old] = resolve(this.old, oldBody);
    const [next] = resolve(this.next, nextBody);
    if (oldBody === undefined) {
      if (next.required) this.main(where, "", "request body added as required");
      return;
    }
    if (nextBody === undefined) return this.main(where, "", "request body removed");
    if (!old.required && next.required) this.main(where, "", "request body became required");
    const at = { where, root: "the request body", path: "", request: true, failure: false, sink: this.main };
    this.content(old.content, next.content, at);
  }

  private response(oldResponse: unknown, nextResponse: unknown, at: At): void {
    const [old, oldRef] = resolve(this.old, oldResponse);
    const [next, nextRef] = resolve(this.next, nextResponse);
    if (oldRef && isDerived(oldRef)) return this.throughBase(oldRef, nextRef, at);
    if (oldRef && nextRef) {
      const key = JSON.stringify([oldRef, nextRef, at.failure]);
      if (this.visited.has(key)) return;
      this.visited.add(key);
      at = { ...at, where: `response ${componentName(oldRef)}`, root: "", sink: this.main };
    }
    this.content(old.content, next.content, at);
  }

  /**
   * A component derived from others (a read's record with its relations, a batch's operation) is
   * compared through those it derives from: its breaks are theirs, reported once, where they are.
   */
  private throughBase(oldRef: string, nextRef: string | undefined, at: At): void {
    const [base, nextBase] = [expandedBase(oldRef), nextRef && (expandedBase(nextRef) ?? nextRef)];
    const has = (document: Json, ref: string) => Object.keys(resolve(document, { $ref: ref })[0]).length > 0;
    if (base && nextBase && has(this.old, base) && has(this.next, nextBase))
      this.schema({ $ref: base }, { $ref: nextBase }, at);
  }

  /** The bodies of a request or an answer, by media type. */
  private content(oldContent: unknown, nextContent: unknown, at: At): void {
    const next = object(nextContent);
    for (const [media, body] of Object.entries(object(oldContent))) {
      if (!(media in next)) {
        at.sink(at.where, at.root, at.request ? `no longer accepts ${media}` : `no longer answers ${media}`);
      } else this.schema(object(body).schema, object(next[media]).schema, at);
    }
  }

  private schema(oldSchema: unknown, nextSchema: unknown, at: At): void {
    const [old, oldRef] = resolve(this.old, oldSchema);
    const [next, nextRef] = resolve(this.next, nextSchema);
    if (oldRef && isDerived(oldRef)) return this.throughBase(oldRef, nextRef, at);
    if (oldRef && nextRef) {
      const key = JSON.stringify([oldRef, nextRef, at.request, at.failure]);
      if (this.visited.has(key)) return;
      this.visited.add(key);
      at = { ...at, where: `schema ${componentName(oldRef)}`, root: "", path: "", sink: this.main };
    }
    const label = at.path ? `field ${JSON.stringify(at.path)}${at.root ? ` of ${at.root}` : ""}` : at.root;
    const report = (message: string) => at.sink(at.where, label, message);

    if (!this.types(old, next, at.request, report)) return;
    this.values(old, next, at, report);
    if (at.request) {
      for (const bound of UPPER) {
        const [before, after] = [old[bound] as number | undefined, next[bound] as number | undefined];
        if (after !== undefined && (before === undefined || after < before))
          report(`narrowed ${bound} from ${before ?? "none"} to ${after}`);
      }
      for (const bound of LOWER) {
        const [before, after] = [old[bound] as number | undefined, next[bound] as number | undefined];
        if (after !== undefined && (before === undefined || after > before))
          report(`narrowed ${bound} from ${before ?? "none"} to ${after}`);
      }
      if (old.additionalProperties !== false && next.additionalProperties === false)
        report("no longer accepts fields it does not name");
    }
    const [narrower, wider] = at.request ? [next, old] : [old, next];
    if (pattern(narrower) !== undefined && pattern(narrower) !== pattern(wider))
      report(
        `changed pattern from ${JSON.stringify(pattern(old) ?? "none")} to ${JSON.stringify(pattern(next) ?? "none")}`,
      );
    for (const keyword of OPAQUE) {
      if (JSON.stringify(old[keyword]) !== JSON.stringify(next[keyword])) report(`changed its ${keyword}`);
    }
    for (const keyword of UNIONS) this.alternatives(keyword, old, next, at, report);
    this.properties(old, next, at);
    if (old.items !== undefined && next.items !== undefined) {
      this.schema(old.items, next.items, { ...at, path: at.path ? `${at.path}[]` : "" });
    }
  }

  /**
   * The JSON types and format: a request may accept more of them, an answer hold fewer. False when
   * the type itself changed, which makes the schema's other keywords incomparable.
   */
  private types(old: Json, next: Json, request: boolean, report: (message: string) => void): boolean {
    const [outer, inner] = request ? [next, old] : [old, next];
    const [outerTypes, innerTypes] = [types(outer), types(inner)];
    const uncovered =
      outerTypes === undefined
        ? []
        : (innerTypes ?? ["any"]).filter(
            (type) => !outerTypes.includes(type) && !(type === "integer" && outerTypes.includes("number")),
          );
    if (uncovered.length === 1 && uncovered[0] === "null")
      report(request ? "no longer accepts null" : "may now be null");
    else if (uncovered.length > 0) {
      report(`changed type from ${typeText(old)} to ${typeText(next)}`);
      return false;
    }
    if (outer.format !== undefined && outer.format !== inner.format)
      report(`changed format from ${String(old.format ?? "none")} to ${String(next.format ?? "none")}`);
    return true;
  }

  /**
   * `const` and `enum`. A request must accept every value it accepted; an answer's fixed message may
   * not change, and a success answer may not gain values (a failure's messages may: a new reference
   * adds to a delete's 409).
   */
  private values(old: Json, next: Json, at: At, report: (message: string) => void): void {
    const before = values(old);
    const after = values(next);
    const missing = before?.filter((value) => !after?.some((other) => sameValue(value, other))) ?? [];
    if (at.request) {
      if (after === undefined) return;
      if (before === undefined) report(`now accepts only ${quoted(after)}`);
      else if (missing.length > 0) report(`no longer accepts ${quoted(missing)}`);
      return;
    }
    if (before === undefined) return;
    const to = after === undefined ? "any value" : after.length === 1 ? quoted(after) : `one of ${quoted(after)}`;
    if (before.length === 1 && missing.length === 1) return report(`changed from ${quoted(before)} to ${to}`);
    if (at.failure) return;
    const added = after?.filter((value) => !before.some((other) => sameValue(value, other)));
    if (after === undefined) report("may now be any value");
    else if (added!.length > 0) report(`may now be ${quoted(added!)}`);
  }

  /**
   * A union's alternatives (`anyOf`, `oneOf`: a nullable related record, a value or a batch's
   * `$ref`, a batch's operations and results), paired by the component they refer to, else by
   * place, and each pair compared. A request may gain alternatives, not lose them; an answer may
   * lose them, and gain only components the published document does not have (a new table's
   * records, which only requests naming it get).
   */
  private alternatives(keyword: string, old: Json, next: Json, at: At, report: (message: string) => void): void {
    if (old[keyword] === undefined && next[keyword] === undefined) return;
    if (!Array.isArray(old[keyword]) || !Array.isArray(next[keyword])) return report(`changed its ${keyword}`);
    const before = old[keyword] as unknown[];
    const after = [...(next[keyword] as unknown[])];
    const refOf = (node: unknown) => (typeof object(node).$ref === "string" ? String(object(node).$ref) : undefined);
    const unpaired: unknown[] = [];
    for (const alternative of before) {
      const ref = refOf(alternative);
      // By the component referred to; an alternative written out pairs with the next one written out.
      const match =
        ref !== undefined
          ? after.findIndex((other) => other !== undefined && refOf(other) === ref)
          : after.findIndex((other) => other !== undefined && refOf(other) === undefined);
      if (match === -1) {
        // A removed derived alternative (a removed table's batch operations) is reported with what it derives from.
        if (ref === undefined || !isDerived(ref)) unpaired.push(alternative);
        continue;
      }
      this.schema(alternative, after[match], at);
      after[match] = undefined;
    }
    const added = after.filter((alternative) => alternative !== undefined);
    if (at.request) {
      if (unpaired.length > 0) report(`no longer accepts ${plural(unpaired.length, `alternative`)} of its ${keyword}`);
      return;
    }
    const known = (ref: string | undefined) =>
      ref !== undefined &&
      resolve(this.old, { $ref: ref })[0] !== undefined &&
      Object.keys(resolve(this.old, { $ref: ref })[0]).length > 0;
    const widened = added.filter((alternative) => known(refOf(alternative)) || refOf(alternative) === undefined);
    if (widened.length > 0) report(`may now be ${plural(widened.length, "more alternative")} of its ${keyword}`);
  }

  private properties(old: Json, next: Json, at: At): void {
    const before = object(old.properties);
    const after = object(next.properties);
    const requiredBefore = new Set((old.required as string[] | undefined) ?? []);
    const requiredAfter = new Set((next.required as string[] | undefined) ?? []);
    const removed = Object.keys(before).filter((name) => !(name in after));
    const added = Object.keys(after).filter((name) => !(name in before));
    const field = (name: string) => ({ ...at, path: at.path ? `${at.path}.${name}` : name });
    const report = (name: string, message: string) => {
      const { where, path, root, sink } = field(name);
      sink(where, `field ${JSON.stringify(path)}${root ? ` of ${root}` : ""}`, message);
    };
    // A request field removed from a body that refuses unknown fields is now refused.
    if (!at.request || next.additionalProperties === false) {
      for (const name of removed) {
        report(name, removed.length === 1 && added.length === 1 ? `renamed to ${JSON.stringify(added[0])}` : "removed");
      }
    }
    for (const name of Object.keys(before).filter((name) => name in after)) {
      if (at.request && !requiredBefore.has(name) && requiredAfter.has(name)) report(name, "became required");
      if (!at.request && requiredBefore.has(name) && !requiredAfter.has(name)) report(name, "may now be absent");
      this.schema(before[name], after[name], field(name));
    }
    if (at.request) for (const name of added) if (requiredAfter.has(name)) report(name, "added as required");
  }
}

/** A node with its local `$ref`s followed, and the first reference followed, if any. */
function resolve(document: Json, node: unknown): [Json, string | undefined] {
  let first: string | undefined;
  const seen = new Set<string>();
  let current = object(node);
  while (typeof current.$ref === "string" && !seen.has(current.$ref)) {
    const ref = current.$ref;
    seen.add(ref);
    first ??= ref;
    current = object(
      ref
        .replace(/^#\//, "")
        .split("/")
        .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce<unknown>((at, part) => object(at)[part], document),
    );
  }
  return [current, first];
}

const componentName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);

/**
 * Components the documents derive from others: `<Table>Expanded` (and `…Expanded2`, `…Expanded1`),
 * a record with its relations (`expand`), whose fields are the record's and whose relations the
 * `expand` parameter names; `BatchCreate<Table>` and the like, a batch's operations, whose data are
 * the create and update bodies.
 */
/** The record a `<Table>Expanded` schema adds relations to: `<Table>Record`. */
const expandedBase = (ref: string) => /^(#\/components\/schemas\/\w+)Expanded[12]?$/.exec(ref)?.[1]?.concat("Record");

const isDerived = (ref: string) =>
  /^#\/components\/schemas\/(Batch(Create|Update|Delete)[A-Z]\w*|\w+Expanded[12]?)$/.test(ref);

/** An operation's parameters (its path's and its own), by place and name. */
function parameters(document: Json, { item, operation }: Operation): Map<string, Json> {
  const all = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])];
  return new Map(
    all.map((parameter) => {
      const [resolved] = resolve(document, parameter);
      return [`${String(resolved.in)} ${String(resolved.name)}`, resolved];
    }),
  );
}

/** The pattern a schema adds to its format: none when it is the pattern of the format itself. */
function pattern(schema: Json): unknown {
  return schema.pattern === FORMAT_PATTERNS[schema.format as keyof typeof FORMAT_PATTERNS] ? undefined : schema.pattern;
}

function types(schema: Json): string[] | undefined {
  if (schema.type === undefined) return undefined;
  return Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
}

/** `integer`, `string (uuid) or null`, `any`. */
function typeText(schema: Json): string {
  const list = types(schema) ?? ["any"];
  const format = schema.format === undefined ? "" : ` (${String(schema.format)})`;
  const text = list.map((type) => (type === "string" ? `string${format}` : type));
  if (format && !list.includes("string")) text[0] += format;
  return text.join(" or ");
}

function values(schema: Json): unknown[] | undefined {
  if ("const" in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
