import { pascalCase } from "../manifest/names.ts";
import type { Field, Model, Query, Table, ValueKind } from "../model/types.ts";
import { refusingReferences } from "../model/references.ts";
import { idValueKind } from "../model/build.ts";
import { tableNames } from "../targets/tables.ts";
import { goneMessage, tableInVersion } from "../model/versions.ts";
import { paramValueSchema, queryRowSchema } from "./queries.ts";
import { idSchema, tableSchemas, valueSchema, type JsonSchema } from "./schemas.ts";
import { createExample, fieldExample, tableIdExample, typeExample, type Ordinal } from "./examples.ts";
import { FORMAT_PATTERNS } from "../runtime/formats.ts";
import { MAX_EXPAND_DEPTH, MAX_EXPANDED_MANY, versionExpansions, type VersionExpansion } from "../model/expansions.ts";
import type { TableVersion } from "../model/versions.ts";

/**
 * The OpenAPI 3.1 document of each version of the API (`openapi/<version>.json` in the server):
 * every route and custom query the version serves, with the JSON Schemas the server compiles
 * (`tableSchemas`, shared with `src/schemas/<table>.ts`), every answer and its status, the key
 * as an `apiKey` security scheme, and the manifest's descriptions. Every field, body and parameter
 * carries an example the server accepts (src/emit/examples.ts), every failure an example of its
 * envelope, and every format of the contract's own the `pattern` the server checks it with.
 */
export function openApiDocuments(model: Model): Map<string, JsonSchema> {
  return new Map(model.versions.map((version) => [version, openApiDocument(model, version)]));
}

/** The security scheme of the `X-API-SIGNATURE` header. */
const SECURITY = "apiSignature";
const QUERIES_TAG = "custom queries";
const DOCUMENT_TAG = "OpenAPI";
const BATCH_TAG = "batch";

/**
 * The fixed failure messages, by status (CONTRACT.md §3): the message, the messages when there are
 * several, or a pattern for a message that varies.
 */
const FAILURES = {
  401: [
    "Unauthorized",
    "Invalid or missing API signature key",
    "The X-API-SIGNATURE header is missing or holds no key of the server (or a key that expired).",
  ],
  403: [
    "Forbidden",
    { pattern: "^This key may not " },
    "The key is valid, but its scope does not reach this operation (a key made by `tablegen keys new`): " +
      "the message names the action and the table or query, as in `This key may not delete posts.`",
  ],
  404: ["NotFound", "Data not found", "No record has this id (or the id cannot exist)."],
  408: ["RequestTimeout", "Request timeout", "The request's headers or body did not arrive in time."],
  413: ["PayloadTooLarge", "Payload too large", "The body is larger than the server's BODY_LIMIT."],
  415: ["UnsupportedMediaType", "Unsupported media type", "The body was sent with a Content-Type other than JSON."],
  429: [
    "TooManyRequests",
    "Too many requests",
    "The key's rate limit is used up in the current window (a key made by `tablegen keys new --limit`); " +
      "`Retry-After` says in how many seconds the next one starts.",
  ],
  500: ["InternalError", "Internal server error", "Something unexpected failed; the details are in the server's log."],
  503: [
    "ServiceUnavailable",
    ["Service unavailable", "Service unavailable: the database schema is newer than this server"],
    "The database cannot be reached now (restarting, unreachable, locked); the server serves again once it can. Or a migration removed or changed a table or column this server uses: it serves that table again once regenerated and restarted.",
  ],
} as const;

type Status = keyof typeof FAILURES;

/** The header of a 429. */
const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds until the key's next window starts.",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
};

const ref = (kind: "schemas" | "responses" | "parameters", name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: JsonSchema, example?: unknown) => ({
  "application/json": { schema, ...(example !== undefined && { example }) },
});

/** A failure's body, with an example of its envelope: the message, or one of its messages. */
function failureContent(message: JsonSchema, example: string) {
  return json(failureSchema(message), { success: false, message: example, data: [] });
}

/** The answer of a failure: the envelope with `success: false`, the message, and `data: []`. */
function failureSchema(message: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      success: { type: "boolean", const: false },
      message: { type: "string", ...message },
      data: { type: "array", maxItems: 0 },
    },
    required: ["success", "message", "data"],
    additionalProperties: false,
  };
}

/** The answer of a success: the envelope with its fixed message and the data. */
function successSchema(message: string, data?: JsonSchema): JsonSchema {
  return {
    type: "object",
    properties: {
      success: { type: "boolean", const: true },
      message: { type: "string", const: message },
      ...(data && { data }),
    },
    required: ["success", "message", ...(data ? ["data"] : [])],
    additionalProperties: false,
  };
}

/** A 409 and its message. */
function conflict(description: string, message: JsonSchema, example: string): JsonSchema {
  return { description, content: failureContent(message, example) };
}

/**
 * Responses of an operation: its own, then the failures every operation can meet, by status: a
 * key's 401 and 429 (a key with a limit), a timeout, an error, a database out of reach.
 */
function responses(own: Record<number, JsonSchema>, failures: Status[]): Record<string, JsonSchema> {
  const all: Record<number, JsonSchema> = { ...own, 401: ref("responses", FAILURES[401][0]) };
  for (const status of [...failures, 408, 429, 500, 503] as Status[])
    all[status] = ref("responses", FAILURES[status][0]);
  return byStatus(all);
}

/** Responses in the order of their status codes. */
function byStatus(all: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.keys(all)
      .map(Number)
      .sort((a, b) => a - b)
      .map((status) => [String(status), all[status]!]),
  );
}

/** The answer of every route of a version from its sunset on. */
const GONE = "Gone";

const BAD_REQUEST = "BadRequest";

/** The reads' header parameter: from the primary, or from a read replica (docs/CONTRACT.md, "Read replicas"). */
const CONSISTENCY = "consistency";

// ---------------------------------------------------------------------------------------------
// Operation names

const IRREGULAR: Record<string, string> = { people: "person", children: "child", men: "man", women: "woman" };
const UNCOUNTABLE = new Set(["data", "metadata", "news", "series", "species", "media", "info", "information"]);
const US_WORDS = new Set(["status", "bonus", "campus", "virus", "bus", "census", "corpus", "focus", "syllabus"]);

/** `posts` → `post`, `categories` → `category`: an English singular, for operation names. */
export function singular(word: string): string {
  if (IRREGULAR[word]) return IRREGULAR[word];
  if (UNCOUNTABLE.has(word) || word.length < 3) return word;
  if (word.endsWith("es") && US_WORDS.has(word.slice(0, -2))) return word.slice(0, -2);
  if (/[^aeiou]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|zz)es$/.test(word)) return word.slice(0, -2);
  if (/(ss|us|is)$/.test(word)) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/** `category_posts` → `CategoryPost`: a table's name in the singular, as operation names use it. */
function singularPascal(table: string): string {
  const parts = table.split("_");
  parts[parts.length - 1] = singular(parts.at(-1)!);
  return pascalCase(parts.join("_"));
}

type Action = "list" | "show" | "create" | "update" | "delete";

/**
 * Operation ids a client generator turns into good names: `listPosts`, `getPost`, `createPost`,
 * `updatePost`, `deletePost`, `queryCategoryPosts`. Two tables whose names agree in the singular
 * (`post`, `posts`) take their full names instead, and any id still taken gets a number.
 */
function operationIds(tables: Table[], queries: Query[]): (key: string) => string {
  const verbs: Record<Action, string> = {
    list: "list",
    show: "get",
    create: "create",
    update: "update",
    delete: "delete",
  };
  const wanted = new Map<string, string>();
  const singulars = new Map<string, number>();
  for (const table of tables)
    singulars.set(singularPascal(table.name), (singulars.get(singularPascal(table.name)) ?? 0) + 1);
  for (const table of tables) {
    const shared = singulars.get(singularPascal(table.name))! > 1;
    const one = shared ? `${pascalCase(table.name)}Record` : singularPascal(table.name);
    for (const action of Object.keys(verbs) as Action[]) {
      const noun = action === "list" ? pascalCase(table.name) : one;
      wanted.set(`${table.name}.${action}`, `${verbs[action]}${noun}`);
    }
  }
  for (const query of queries) wanted.set(`query.${query.name}`, `query${pascalCase(query.name)}`);
  wanted.set("document", "getOpenApiDocument");
  wanted.set("batch", "runBatch");
  const taken = new Set<string>();
  const ids = new Map<string, string>();
  for (const [key, id] of wanted) {
    let unique = id;
    for (let n = 2; taken.has(unique); n++) unique = `${id}${n}`;
    taken.add(unique);
    ids.set(key, unique);
  }
  return (key) => ids.get(key)!;
}

// ---------------------------------------------------------------------------------------------
// List parameters

const ORDERED: ReadonlySet<ValueKind> = new Set(["float", "integer", "bigint", "text", "datetime"]);

const OPERATORS: [string, (kind: ValueKind) => boolean][] = [
  ["ne", () => true],
  ["gt", (kind) => ORDERED.has(kind)],
  ["gte", (kind) => ORDERED.has(kind)],
  ["lt", (kind) => ORDERED.has(kind)],
  ["lte", (kind) => ORDERED.has(kind)],
  ["in", () => true],
  ["contains", (kind) => kind === "text"],
  ["null", () => true],
];

/**
 * What the filters mean, said once in each list's description rather than in each of its
 * parameters (a table's list has up to ten a field: they made most of a large project's documents).
 */
const FILTERS =
  "Filters: `<field>=<value>` keeps the records whose field equals the value; `<field>[ne]` differs " +
  "from it (a null field matches no comparison); `[gt]`, `[gte]`, `[lt]`, `[lte]` are greater, greater " +
  "or equal, less, less or equal (numbers, text, date-times); `[in]` is one of the values, separated by " +
  "commas; `[contains]` contains the text, ignoring case; `[null]=true` is null, `[null]=false` is not.";

/**
 * An optional query parameter's schema with its example, as JSON Schema's `examples`: a parameter's
 * own `example` is what Swagger UI fills in to try a request, and a list tried with every filter
 * filled in would answer nothing (or 400: `after` and `offset` cannot be combined). A required
 * parameter (a path's id, a query's) takes `example`, filled in.
 */
function withExample(schema: JsonSchema, example: unknown): JsonSchema {
  return example === undefined ? schema : { ...schema, examples: [example] };
}

/** The parameters of a list that are not filters, which take their names first. */
const LIST_PARAMETERS: ReadonlySet<string> = new Set(["limit", "offset", "sort", "after", "count"]);

/** The filters of a list: `<field>=<value>` and `<field>[<op>]=<value>` for every field, id included. */
function filterParameters(table: Table): JsonSchema[] {
  const fields: { name: string; kind: ValueKind; example: unknown }[] = [
    { name: "id", kind: idValueKind(table), example: tableIdExample(table) },
    ...table.fields.map((field: Field) => ({ name: field.name, kind: field.kind, example: fieldExample(field) })),
  ];
  return fields.flatMap(({ name, kind, example }) => [
    // A field named like a list parameter (`count`) is filtered with `count[ne]` and the like only.
    ...(LIST_PARAMETERS.has(name) ? [] : [{ name, in: "query", schema: withExample(valueSchema(kind), example) }]),
    ...OPERATORS.filter(([, applies]) => applies(kind)).map(([operator]) => ({
      name: `${name}[${operator}]`,
      in: "query",
      ...(operator === "in" && { style: "form", explode: false }),
      schema: withExample(
        operator === "in"
          ? { type: "array", items: valueSchema(kind), minItems: 1 }
          : operator === "null"
            ? { type: "boolean" }
            : operator === "contains"
              ? { type: "string" }
              : valueSchema(kind),
        example === undefined ? undefined : operator === "in" ? [example] : operator === "null" ? false : example,
      ),
    })),
  ]);
}

function listParameters(table: Table): JsonSchema[] {
  const sortable = ["id", ...table.fields.map((field) => field.name)];
  return [
    ref("parameters", "limit"),
    ref("parameters", "offset"),
    {
      name: "sort",
      in: "query",
      description:
        "Fields to order by, separated by commas, `-` before a field for descending; `id` breaks ties. " +
        "Nulls come last ascending and first descending.",
      style: "form",
      explode: false,
      schema: {
        type: "array",
        items: { type: "string", enum: sortable.flatMap((name) => [name, `-${name}`]) },
        minItems: 1,
        examples: [["-id"]],
      },
    },
    {
      name: "after",
      in: "query",
      description:
        "Keyset paging: the records after this id in id order (before it with `sort=-id`). " +
        "Cannot be combined with `offset` or a sort on another field.",
      schema: withExample(valueSchema(idValueKind(table)), tableIdExample(table)),
    },
    ref("parameters", "count"),
    ref("parameters", CONSISTENCY),
    ...filterParameters(table),
  ];
}

// ---------------------------------------------------------------------------------------------
// The document

/** A table's id schema as the documents give it: a bigint id's with the pattern of its digits, as its references'. */
function documentedId(table: Table): JsonSchema {
  const schema = idSchema(table);
  return table.id === "bigint" ? { ...schema, pattern: FORMAT_PATTERNS.int64 } : schema;
}

/** The path's id: the first record's (show, update), or the second's (delete: the one a create's example makes). */
function idParameter(table: Table, ordinal: Ordinal): JsonSchema {
  return {
    name: "id",
    in: "path",
    required: true,
    description: `The record's id. An id that cannot exist on ${table.name} is answered like a missing one: 404.`,
    schema: documentedId(table),
    example: tableIdExample(table, ordinal),
  };
}

function tableOperations(
  table: Table,
  model: Model,
  version: string,
  operationId: (key: string) => string,
  expandable: string[],
) {
  const { project } = model;
  const { record } = tableNames(table.name);
  // A table with relations answers its reads as records that may embed related ones (`expand`).
  const read = expandable.length > 0 ? expandedName(table.name) : record;
  const expandParameter = expandable.length > 0 ? [expandParameterOf(expandable)] : [];
  const names = { record, create: `${pascalCase(table.name)}Create`, update: `${pascalCase(table.name)}Update` };
  const base = `/${project}/${table.name}/${version}`;
  const about = table.description ? `${table.description}\n\n` : "";
  const unique = table.fields
    .filter((field) => field.unique)
    // The server names the stored field, which a version may answer under another name.
    .map((field) => `Invalid request: ${"column" in field ? field.column : field.name} already exists`);
  const uniqueConflict: Record<number, JsonSchema> =
    unique.length > 0
      ? { 409: conflict("A unique field holds a value another record has.", { enum: unique }, unique[0]!) }
      : {};
  // A version's refusals name only the tables it has (the others are among `other records`).
  const refusals = refusingReferences(table, model);
  const present = new Set(
    refusals.length > 0 ? model.tables.filter((other) => other.versions.includes(version)).map(({ name }) => name) : [],
  );
  const referrers = [
    ...new Set(refusals.filter(({ tables }) => tables.every((name) => present.has(name))).map(({ label }) => label)),
  ];
  const tags = [table.name];
  const recordAnswer = (message: string, description: string) => ({
    description,
    content: json(successSchema(message, ref("schemas", names.record))),
  });
  const body = (name: string, description: string, example: Record<string, unknown>) => ({
    required: true,
    description,
    content: json(ref("schemas", name), example),
  });
  const examples = (value: (field: Field) => unknown) =>
    Object.fromEntries(table.fields.map((field) => [field.name, value(field)]).filter(([, v]) => v !== undefined));

  return {
    [`${base}/list`]: {
      get: {
        operationId: operationId(`${table.name}.list`),
        summary: `List the records in ${table.name}`,
        description:
          `${about}Without parameters: every record, in id order. With them: a page, filtered (the filters ` +
          `combine with AND), sorted, counted. Bad parameters are one 400 naming every problem.\n\n${FILTERS}`,
        tags,
        parameters: [...listParameters(table), ...expandParameter],
        responses: responses(
          {
            200: {
              description: "The records, in id order unless sorted.",
              headers: {
                "X-Total-Count": {
                  description: "With `count=true`: how many records the filters match.",
                  schema: { type: "integer", minimum: 0 },
                },
                Link: {
                  description: 'When `limit` cut the page: `<url>; rel="next"`, the next page.',
                  schema: { type: "string" },
                },
              },
              content: json(successSchema("Data found.", { type: "array", items: ref("schemas", read) })),
            },
            400: ref("responses", BAD_REQUEST),
          },
          [403],
        ),
      },
    },
    [`${base}/show/{id}`]: {
      get: {
        operationId: operationId(`${table.name}.show`),
        summary: `Get a record from ${table.name}`,
        ...(about && { description: table.description }),
        tags,
        parameters: [idParameter(table, 1), ...expandParameter, ref("parameters", CONSISTENCY)],
        responses: responses(
          {
            200: { description: "The record.", content: json(successSchema("Data found.", ref("schemas", read))) },
            // A bad `expand`: every table's show reads it, one without relations refuses every name.
            400: ref("responses", BAD_REQUEST),
          },
          [403, 404],
        ),
      },
    },
    [`${base}/create`]: {
      post: {
        operationId: operationId(`${table.name}.create`),
        summary: `Create a record in ${table.name}`,
        description:
          `${about}The server assigns the id; a field left out takes its default, or null. ` +
          "Every problem of the body is reported at once, in one 400.",
        tags,
        requestBody: body(names.create, "The new record's fields.", examples(createExample)),
        responses: responses(
          {
            201: recordAnswer("Record created successfully.", "The created record, with its id."),
            400: ref("responses", BAD_REQUEST),
            ...uniqueConflict,
          },
          [403, 413, 415],
        ),
      },
    },
    [`${base}/update/{id}`]: {
      post: {
        operationId: operationId(`${table.name}.update`),
        summary: `Update a record in ${table.name}`,
        description: `${about}Changes the fields the body names (at least one); the others keep their values.`,
        tags,
        parameters: [idParameter(table, 1)],
        requestBody: body(names.update, "The fields to change.", examples(fieldExample)),
        responses: responses(
          {
            200: recordAnswer("Record updated successfully.", "The whole record, as updated."),
            400: ref("responses", BAD_REQUEST),
            ...uniqueConflict,
          },
          [403, 404, 413, 415],
        ),
      },
    },
    [`${base}/delete/{id}`]: {
      delete: {
        operationId: operationId(`${table.name}.delete`),
        summary: `Delete a record from ${table.name}`,
        ...(about && { description: table.description }),
        tags,
        parameters: [idParameter(table, 2)],
        responses: responses(
          {
            200: { description: "Deleted.", content: json(successSchema("Record deleted successfully.")) },
            400: ref("responses", BAD_REQUEST),
            409: conflict(
              "Other records refer to this one (onDelete: restrict): the message names their tables.",
              referencedMessages(referrers),
              `Record is referenced by ${referrers[0] ?? "other records"}`,
            ),
          },
          // A delete needs no body, but one sent is read like any other (400, 413, 415).
          [403, 404, 413, 415],
        ),
      },
    },
  };
}

/**
 * The messages of a refused delete: the referring tables that hold the id, in the manifest's order
 * and joined with commas, or `other records` for tables the manifest does not know.
 */
function referencedMessages(referrers: string[]): JsonSchema {
  if (referrers.length > 4) return { pattern: "^Record is referenced by " };
  const subsets: string[][] = [[]];
  for (const table of referrers) for (const subset of [...subsets]) subsets.push([...subset, table]);
  const named = subsets.filter((subset) => subset.length > 0).sort((a, b) => a.length - b.length);
  const tables = [...named.map((subset) => subset.join(", ")), "other records"];
  return { enum: tables.map((names) => `Record is referenced by ${names}`) };
}

function queryOperation(query: Query, project: string, version: string, operationId: (key: string) => string) {
  return {
    [`/${project}/${version}/${query.name}`]: {
      get: {
        operationId: operationId(`query.${query.name}`),
        summary: `Run the ${query.name} query`,
        ...(query.description && { description: query.description }),
        tags: [QUERIES_TAG],
        parameters: [
          ...query.params.map((param) => ({
            name: param.name,
            in: "query",
            required: true,
            description: `Bound to :${param.name} (${param.type}).`,
            schema: paramValueSchema(param),
            example: typeExample(param.type, param.kind, param.name),
          })),
          ref("parameters", CONSISTENCY),
        ],
        responses: responses(
          {
            200: {
              description: "The rows, keyed by the query's output columns.",
              content: json(successSchema("Data found.", { type: "array", items: queryRowSchema(query) })),
            },
            400: ref("responses", BAD_REQUEST),
          },
          [403],
        ),
      },
    },
  };
}

function description(model: Model, version: string): string {
  const deprecation = model.deprecated[version];
  return [
    ...(deprecation
      ? [
          `**Deprecated**${deprecation.since ? ` since ${deprecation.since}` : ""}` +
            (deprecation.sunset
              ? `: from its sunset, ${deprecation.sunset} (the \`Sunset\` header), every operation answers ` +
                `410 (\`${goneMessage(version, deprecation.sunset)}\`).`
              : ".") +
            " Its answers carry a `Deprecation` header; use the newest version.",
          "",
        ]
      : []),
    `The REST API of the ${model.project} project, version ${version}, generated by tablegen.`,
    "",
    "Every request carries the API signature key in the `X-API-SIGNATURE` header: the project's key, which " +
      "can do everything, or a key made by `tablegen keys new`, which reaches only what its scope names (403 " +
      "otherwise) and may be limited to so many requests a minute (429, with `Retry-After`). Every answer is JSON in " +
      "one envelope: `success`, `message` and `data` (a record or a list of them; a delete has none). " +
      "A failure has `success: false`, a message saying why and `data: []`.",
    "",
    "Records carry every field, `id` first; an unset field is null. DATETIME values are answered as " +
      "`YYYY-MM-DDTHH:MM:SSZ` and accepted as RFC 3339 date-times with a time zone, at an instant of the " +
      "years 0001 to 9999 in UTC.",
    "",
    "Beyond the operations below, an unknown path is a 404 (`Data not found`), a known path asked with " +
      "another method a 405 (`Method not allowed`), and request headers too large a 431.",
  ].join("\n");
}

export function openApiDocument(model: Model, version: string): JsonSchema {
  // Each table as this version has it: its fields there, under their names there.
  const tables = model.tables
    .filter((table) => table.versions.includes(version))
    .map((table) => tableInVersion(table, version));
  const queries = model.queries.filter((query) => query.versions.includes(version));
  const operationId = operationIds(tables, queries);
  const documentPath = `/${model.project}/${version}/openapi.json`;
  const batchPath = `/${model.project}/${version}/batch`;
  const expansionsOf = versionExpansions(model);
  const expansions = new Map(tables.map((table) => [table.name, expansionsOf(table, version)]));
  const schemas: Record<string, JsonSchema> = {};
  for (const table of tables) {
    const { record, create, update } = tableSchemas(table);
    const id = { id: tableIdExample(table) };
    schemas[tableNames(table.name).record] = documented(record, table, fieldExample, id);
    schemas[`${pascalCase(table.name)}Create`] = documented(create, table, createExample);
    schemas[`${pascalCase(table.name)}Update`] = documented(update, table, fieldExample);
  }
  const expanded = expandedSchemas(schemas, expansions);
  for (const table of tables) expanded(table.name);
  Object.assign(schemas, batchSchemas(tables));
  const failureResponses: Record<string, JsonSchema> = {
    [BAD_REQUEST]: {
      description: "The request is not valid: the message lists every problem, joined with `; `.",
      content: failureContent(
        { pattern: "^Invalid request: " },
        "Invalid request: limit must be an integer from 1 to 1000",
      ),
    },
  };
  // A key's refusal names an operation of the version's first table (or query), as the server's would.
  const refused = tables[0]
    ? `This key may not delete ${tables[0].name}.`
    : `This key may not run the ${queries[0]?.name ?? "report"} query.`;
  for (const [status, [name, message, text]] of Object.entries(FAILURES)) {
    const messages =
      typeof message === "string" ? { const: message } : "pattern" in message ? message : { enum: [...message] };
    const example = typeof message === "string" ? message : "pattern" in message ? refused : message[0];
    failureResponses[name] = {
      description: text,
      ...(status === "429" && { headers: RETRY_AFTER }),
      content: failureContent(messages, example),
    };
  }

  Object.assign(failureResponses, batchFailures());
  const document = {
    openapi: "3.1.0",
    info: { title: `${model.project} API`, version, description: description(model, version) },
    servers: [{ url: "../..", description: "The server this document comes from" }],
    security: [{ [SECURITY]: [] }],
    tags: [
      ...tables.map((table) => ({ name: table.name, description: table.description ?? `The ${table.name} table.` })),
      ...(queries.length > 0 ? [{ name: QUERIES_TAG, description: "Read-only SQL queries of the project." }] : []),
      ...(tables.length > 0 ? [{ name: BATCH_TAG, description: "Many writes in one transaction." }] : []),
      { name: DOCUMENT_TAG, description: "This document." },
    ],
    paths: {
      ...Object.assign(
        {},
        ...tables.map((table) =>
          tableOperations(table, model, version, operationId, expandNames(table.name, expansions)),
        ),
      ),
      ...Object.assign({}, ...queries.map((query) => queryOperation(query, model.project, version, operationId))),
      ...(tables.length > 0 && { [batchPath]: batchOperation(tables, operationId) }),
      [documentPath]: {
        get: {
          operationId: operationId("document"),
          summary: `The OpenAPI document of ${version}`,
          description: "This document. With `API_DOCS=on` the server answers it without the key.",
          tags: [DOCUMENT_TAG],
          responses: responses(
            { 200: { description: "The document.", content: json({ type: "object", additionalProperties: true }) } },
            [],
          ),
        },
      },
    },
    components: {
      securitySchemes: {
        [SECURITY]: {
          type: "apiKey",
          in: "header",
          name: "X-API-SIGNATURE",
          description:
            "The project's API signature key (API_SIGNATURE_KEY of the server), or a key made by `tablegen keys new` " +
            "(an API_KEY_<NAME> variable of the server), which reaches only what its scope names.",
        },
      },
      parameters: {
        limit: {
          name: "limit",
          in: "query",
          description: "Page size. A page cut by the limit carries a `Link` header to the next one.",
          schema: { type: "integer", minimum: 1, maximum: 1000, examples: [20] },
        },
        offset: {
          name: "offset",
          in: "query",
          description: "Records to skip before the page.",
          schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, examples: [0] },
        },
        count: {
          name: "count",
          in: "query",
          description: "`true` adds `X-Total-Count`, the number of records the filters match.",
          schema: { type: "boolean", examples: [true] },
        },
        [CONSISTENCY]: {
          name: "X-Consistency",
          in: "header",
          description:
            "`strong`: read from the primary database, which holds every write already answered. `eventual` (the " +
            "default): from a read replica when the server has them (PostgreSQL's `DATABASE_REPLICA_URLS`), which may " +
            "lag behind by up to `REPLICA_MAX_LAG_MS`; without replicas both read the one database.",
          schema: { type: "string", enum: ["strong", "eventual"], examples: ["strong"] },
        },
      },
      schemas,
      responses: failureResponses,
    },
  };
  const deprecation = model.deprecated[version];
  if (deprecation) {
    for (const operations of Object.values(document.paths) as Record<string, JsonSchema>[])
      for (const operation of Object.values(operations)) operation.deprecated = true;
  }
  if (deprecation?.sunset !== undefined) {
    // Every route of the version answers 410 from its sunset on; its document stays (it is not the version's route).
    const message = goneMessage(version, deprecation.sunset);
    failureResponses[GONE] = {
      description: `The version's sunset, ${deprecation.sunset}, has passed: it serves no more requests.`,
      content: failureContent({ const: message }, message),
    };
    for (const [path, operations] of Object.entries(document.paths) as [string, Record<string, JsonSchema>][]) {
      if (path === documentPath) continue;
      for (const operation of Object.values(operations)) {
        operation.responses = byStatus({ ...(operation.responses as object), 410: ref("responses", GONE) });
      }
    }
  }
  return withoutUnusedComponents(document);
}

/**
 * A table's schema as the document gives it: the object the server compiles, each property with its
 * example and, for a format of the contract's own (phone, email), the `pattern` the server checks
 * it with; neither changes what the schema accepts.
 */
function documented(
  schema: JsonSchema,
  table: Table,
  example: (field: Field) => unknown,
  extra: Record<string, unknown> = {},
): JsonSchema {
  const values: Record<string, unknown> = {
    ...extra,
    ...Object.fromEntries(table.fields.map((field) => [field.name, example(field)])),
  };
  const properties = Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => {
    const pattern = FORMAT_PATTERNS[property.format as keyof typeof FORMAT_PATTERNS];
    return [
      name,
      {
        ...property,
        ...(pattern !== undefined && { pattern }),
        ...(values[name] !== undefined && { examples: [values[name]] }),
      },
    ];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}

/** The document without the shared parameters and responses none of its operations refers to. */
function withoutUnusedComponents<T extends { paths: object; components: Record<string, object> }>(document: T): T {
  // They are referred to from an operation's parameters and responses only (see ref's callers).
  const used = new Set<unknown>();
  for (const operations of Object.values(document.paths) as Record<string, JsonSchema>[]) {
    for (const { parameters = [], responses = {} } of Object.values(operations)) {
      for (const { $ref } of [...(parameters as JsonSchema[]), ...Object.values(responses as object)]) used.add($ref);
    }
  }
  const components: Record<string, object> = {};
  for (const [kind, entries] of Object.entries(document.components)) {
    const kept =
      kind === "parameters" || kind === "responses"
        ? Object.fromEntries(Object.entries(entries).filter(([name]) => used.has(`#/components/${kind}/${name}`)))
        : entries;
    if (Object.keys(kept).length > 0) components[kind] = kept;
  }
  return { ...document, components };
}

// ---------------------------------------------------------------------------------------------
// expand

/** The schema of a table's record as a read answers it: maybe with related records (`expand`). */
const expandedName = (table: string) => `${pascalCase(table)}Expanded`;

/** The most names an `expand` enum lists: past it, a pattern stands for them (a table of many relations). */
const MAX_EXPAND_NAMES = 200;

/**
 * Every name `expand` takes on a table in a version: its relations, and theirs after a dot, to the
 * deepest nesting; empty when it has none.
 */
function expandNames(table: string, expansions: Map<string, VersionExpansion[]>): string[] {
  const names: string[] = [];
  const walk = (on: string, prefix: string, depth: number) => {
    if (depth > MAX_EXPAND_DEPTH || names.length > MAX_EXPAND_NAMES) return;
    for (const expansion of expansions.get(on) ?? []) {
      const name = `${prefix}${expansion.name}`;
      names.push(name);
      walk(expansion.table, `${name}.`, depth + 1);
    }
  };
  walk(table, "", 1);
  return names;
}

function expandParameterOf(names: string[]): JsonSchema {
  const name = names.length > MAX_EXPAND_NAMES ? undefined : names;
  return {
    name: "expand",
    in: "query",
    description:
      `Related records to embed in each record, separated by commas: the record a reference names (\`null\` ` +
      `when it names none), or the records of another table that refer to this one (at most ` +
      `${MAX_EXPANDED_MANY} each, in id order); nested with dots, at most ${MAX_EXPAND_DEPTH} levels deep. ` +
      `An unknown or too deep name is a 400 naming it. Each relation costs one statement per page, whatever its size.`,
    style: "form",
    explode: false,
    schema: {
      type: "array",
      items: name
        ? { type: "string", enum: name }
        : { type: "string", pattern: "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*){0,2}$" },
      minItems: 1,
      examples: [[names[0]]],
    },
  };
}

/**
 * The schemas of a table's records as reads answer them, each relation an optional property: the
 * related record (or null), or a list of them. A record embedded at the deepest level embeds no
 * more, so the schemas are not recursive: `<Table>Expanded` may embed three levels, its related
 * records' `<Table>Expanded2` two, theirs `<Table>Expanded1` one, and theirs are plain records.
 */
function expandedSchemas(
  schemas: Record<string, JsonSchema>,
  expansions: Map<string, VersionExpansion[]>,
): (table: string) => void {
  const made = (table: string, levels: number): string => {
    const related = expansions.get(table) ?? [];
    if (levels === 0 || related.length === 0) return tableNames(table).record;
    const name = levels === MAX_EXPAND_DEPTH ? expandedName(table) : `${expandedName(table)}${levels}`;
    if (schemas[name]) return name;
    const record = schemas[tableNames(table).record]!;
    const properties = { ...(record.properties as Record<string, JsonSchema>) };
    schemas[name] = { ...record, properties };
    for (const expansion of related) {
      const embedded = ref("schemas", made(expansion.table, levels - 1));
      properties[expansion.name] =
        expansion.kind === "one"
          ? {
              description: `With \`expand=${expansion.name}\`: the ${expansion.table} record \`${expansion.key}\` names, or null.`,
              anyOf: [embedded, { type: "null" }],
              examples: [null],
            }
          : {
              description: `With \`expand=${expansion.name}\`: the ${expansion.table} records whose \`${expansion.key}\` names this one, at most ${MAX_EXPANDED_MANY}, in id order.`,
              type: "array",
              items: embedded,
              maxItems: MAX_EXPANDED_MANY,
              examples: [[]],
            };
    }
    return name;
  };
  return (table) => void made(table, MAX_EXPAND_DEPTH);
}

// ---------------------------------------------------------------------------------------------
// batch

const BATCH_DONE = "Batch completed successfully.";
/** The most operations a batch takes. */
const MAX_OPERATIONS = 1000;
const BATCH_REF = "BatchRef";
/** A failure of one of a batch's operations: its message, prefixed with its index. */
const OPERATION = "^operations\\[[0-9]+\\]: ";

/** A batch's failures: each as its operation alone would get it, prefixed with its index, or the batch's own. */
function batchFailures(): Record<string, JsonSchema> {
  const failure = (description: string, pattern: string, example: string) => ({
    description,
    content: failureContent({ pattern }, example),
  });
  return {
    BatchBadRequest: failure(
      "The batch is malformed (every problem named where it is), or an operation is not valid as its route would say.",
      `^(operations\\[[0-9]+\\]: )?Invalid request: `,
      "operations[2]: Invalid request: title is required",
    ),
    BatchForbidden: failure(
      "The key's scope does not reach an operation.",
      `${OPERATION}This key may not `,
      "operations[0]: This key may not create posts.",
    ),
    BatchNotFound: failure(
      "An update or delete names no record.",
      `${OPERATION}Data not found$`,
      "operations[1]: Data not found",
    ),
    BatchConflict: failure(
      "An operation meets a unique value taken, or a delete other records refer to.",
      OPERATION,
      "operations[1]: Invalid request: email already exists",
    ),
  };
}

/** The components a batch's body and answer refer to: a `$ref` to an earlier result, and each table's operations. */
function batchSchemas(tables: TableVersion[]): Record<string, JsonSchema> {
  if (tables.length === 0) return {};
  const schemas: Record<string, JsonSchema> = {
    [BATCH_REF]: {
      type: "object",
      description: "A value of an earlier operation's result: `<index>.<field>`, as in `0.id`.",
      properties: { $ref: { type: "string", pattern: "^(0|[1-9][0-9]*)\\.[a-z][a-z0-9_]*$", examples: ["0.id"] } },
      required: ["$ref"],
      additionalProperties: false,
    },
  };
  const refOr = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, ref("schemas", BATCH_REF)] });
  for (const table of tables) {
    const { create, update } = tableSchemas(table);
    const withRefs = (schema: JsonSchema) => ({
      ...schema,
      properties: Object.fromEntries(
        Object.entries(schema.properties as Record<string, JsonSchema>).map(([name, property]) => [
          name,
          refOr(property),
        ]),
      ),
    });
    const pascal = pascalCase(table.name);
    const id = { ...refOr(documentedId(table)), examples: [tableIdExample(table)] };
    const values = (example: (field: Field) => unknown) =>
      Object.fromEntries(
        table.fields.flatMap((field) => (example(field) === undefined ? [] : [[field.name, example(field)]])),
      );
    const data = (schema: JsonSchema, example: Record<string, unknown>) => ({
      ...withRefs(schema),
      examples: [example],
    });
    const operation = (action: string, fields: Record<string, JsonSchema>, required: string[]) => ({
      type: "object",
      properties: {
        action: { type: "string", const: action, examples: [action] },
        table: { type: "string", const: table.name, examples: [table.name] },
        ...fields,
      },
      required: ["action", "table", ...required],
      additionalProperties: false,
    });
    schemas[`BatchCreate${pascal}`] = operation("create", { data: data(create, values(createExample)) }, ["data"]);
    const changes = values(fieldExample);
    schemas[`BatchUpdate${pascal}`] = operation(
      "update",
      // An update changes at least one field: the id's table has none but its id (then the example is empty).
      { id, data: data(update, changes) },
      ["id", "data"],
    );
    schemas[`BatchDelete${pascal}`] = operation("delete", { id }, ["id"]);
  }
  return schemas;
}

function batchOperation(tables: TableVersion[], operationId: (key: string) => string) {
  const operations = tables.flatMap((table) =>
    ["Create", "Update", "Delete"].map((action) => ref("schemas", `Batch${action}${pascalCase(table.name)}`)),
  );
  const results = [
    ...tables.map((table) => ref("schemas", tableNames(table.name).record)),
    {
      type: "object",
      description: "A delete's result: the id of the record it deleted.",
      properties: {
        id: {
          anyOf: [{ type: "integer" }, { type: "string" }],
          description: tables.some((table) => table.id === "bigint")
            ? "A number id, or a uuid or a bigint id (a string of digits)."
            : "A number id, or a uuid.",
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
  ];
  const first = tables[0]!;
  return {
    post: {
      operationId: operationId("batch"),
      summary: "Run creates, updates and deletes in one transaction",
      description:
        `Up to ${MAX_OPERATIONS} operations of this version's tables, run in order in one transaction: each ` +
        "validated, checked against the key's scope and run with its table's hooks as its own route would be. " +
        'A value `{"$ref": "<index>.<field>"}` (in `data`, or as an `id`) is that field of an earlier ' +
        "operation's result. All succeed and are committed, or nothing is written: a failure is answered " +
        "with the status the operation alone would get, its message prefixed with `operations[<index>]: `. " +
        "A malformed batch is one 400 naming every problem where it is.",
      tags: [BATCH_TAG],
      requestBody: {
        required: true,
        description: "The operations, in the order they run.",
        content: json(
          {
            type: "object",
            properties: {
              operations: { type: "array", items: { oneOf: operations }, minItems: 1, maxItems: MAX_OPERATIONS },
            },
            required: ["operations"],
            additionalProperties: false,
          },
          {
            // An update of the first record to the values it has, which a tool may send again and
            // again; no `$ref` in an example: tools would take it for a JSON Reference.
            operations: [
              {
                action: "update",
                table: first.name,
                id: tableIdExample(first),
                data: Object.fromEntries(
                  first.fields.flatMap((field) => {
                    const value = fieldExample(field);
                    return value === undefined ? [] : [[field.name, value]];
                  }),
                ),
              },
            ],
          },
        ),
      },
      responses: responses(
        {
          200: {
            description: "Every operation's result, in order: the record it created or updated, or the id it deleted.",
            content: json(successSchema(BATCH_DONE, { type: "array", items: { anyOf: results } })),
          },
          400: ref("responses", "BatchBadRequest"),
          403: ref("responses", "BatchForbidden"),
          404: ref("responses", "BatchNotFound"),
          409: ref("responses", "BatchConflict"),
        },
        [413, 415],
      ),
    },
  };
}
