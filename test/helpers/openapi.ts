import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { FORMAT_PATTERNS, formats } from "../../src/runtime/formats.ts";

// Every answer of a generated server checked against the OpenAPI documents it was generated with
// (openapi/<version>.json), by Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1): the status
// must be one the operation lists, and the body must match that response's schema. An answer to
// a request no operation describes (an unknown path, a method a path does not serve) must be the
// failure envelope with the message the documents' description gives for its status.

// ajv-formats is CommonJS: its default export is the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = { [key: string]: unknown };

export interface OpenApiDocument extends Json {
  paths: Record<string, Record<string, Json>>;
  components: Json;
}

interface Operation {
  document: OpenApiDocument;
  template: string;
  pattern: RegExp;
  method: string;
  operation: Json;
}

/** What the server answered. */
export interface Answered {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

/** The fixed answers to requests no operation describes (the documents' info.description). */
const OUTSIDE_OPERATIONS: Record<number, string> = {
  401: "Invalid or missing API signature key",
  404: "Data not found",
  405: "Method not allowed",
};

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);

/**
 * One validator for each distinct schema (inlined), whichever server's documents it comes from:
 * servers of the same example, or of manifests that share tables, share what Ajv compiled.
 */
const validatorsBySchema = new Map<string, ValidateFunction>();

function compile(schema: Json): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validatorsBySchema.get(key);
  if (!validate) validatorsBySchema.set(key, (validate = ajv.compile(schema)));
  return validate;
}

export class ResponseValidator {
  private readonly operations: Operation[];
  /** Each document's validators, by the text of the schema they check. */
  private readonly compiled = new Map<OpenApiDocument, Map<string, ValidateFunction>>();

  constructor(readonly documents: OpenApiDocument[]) {
    this.operations = documents.flatMap((document) =>
      Object.entries(document.paths).flatMap(([template, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, operation]) => ({
            document,
            template,
            method,
            operation,
            pattern: new RegExp(`^${template.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`),
          })),
      ),
    );
  }

  /** The operation a request reaches, if a document describes it (HEAD answers like GET). */
  operationOf(method: string, url: string): Operation | undefined {
    let path = new URL(url).pathname;
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    const wanted = method.toLowerCase() === "head" ? "get" : method.toLowerCase();
    return this.operations.find((candidate) => candidate.method === wanted && candidate.pattern.test(path));
  }

  /** Every way the answer departs from the documents; none when they describe it. */
  problems(answer: Answered): string[] {
    const operation = this.operationOf(answer.method, answer.url);
    const head = answer.method.toUpperCase() === "HEAD";
    if (!operation) return this.outsideOperations(answer, head);
    const where = `${answer.method} ${operation.template} (${String(operation.operation.operationId)}) → ${answer.status}`;
    const responses = operation.operation.responses as Json;
    const documented = responses[String(answer.status)] ?? responses.default;
    if (documented === undefined) return [`${where}: the document lists no such status`];
    const response = this.resolve(operation.document, documented) as Json;
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const value = answer.headers.get(name);
      if (value === null) continue;
      const { type } = this.resolve(operation.document, header.schema) as Json;
      if ((type === "integer" || type === "number") && !/^-?\d+(\.\d+)?$/.test(value))
        problems.push(`${where}: header ${name} is not a number: ${value}`);
      const parsed = type === "integer" || type === "number" ? Number(value) : value;
      problems.push(...this.check(operation.document, header.schema as Json, parsed, `${where}: header ${name}`));
    }
    const content = response.content as Record<string, Json> | undefined;
    if (content === undefined) {
      if (answer.text !== "") problems.push(`${where}: the document describes no body, the server sent one`);
      return problems;
    }
    if (head) return problems;
    const type = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim();
    const media = content[type];
    if (media === undefined) return [...problems, `${where}: the document describes no ${type || "untyped"} body`];
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `${where}: the body is not JSON`];
    }
    return [...problems, ...this.check(operation.document, media.schema as Json, body, where)];
  }

  private outsideOperations(answer: Answered, head: boolean): string[] {
    const where = `${answer.method} ${new URL(answer.url).pathname} → ${answer.status} (no operation)`;
    const message = OUTSIDE_OPERATIONS[answer.status];
    if (message === undefined) return [`${where}: only ${Object.keys(OUTSIDE_OPERATIONS).join(", ")} can answer it`];
    if (head) return [];
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const expected = { success: false, message, data: [] };
    return JSON.stringify(body) === JSON.stringify(expected) ? [] : [`${where}: expected ${JSON.stringify(expected)}`];
  }

  private check(document: OpenApiDocument, schema: Json, value: unknown, where: string): string[] {
    // By the schema's text: a response reached through a $ref is resolved afresh for each answer.
    let compiled = this.compiled.get(document);
    if (!compiled) this.compiled.set(document, (compiled = new Map()));
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = compile(this.resolve(document, schema) as Json)));
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${where}: ${error.instancePath || "(body)"} ${error.message} ${JSON.stringify(error.params)}`,
    );
  }

  /** A part of a document with every `$ref` to its components replaced by what it names. */
  resolve(document: OpenApiDocument, node: unknown): unknown {
    if (Array.isArray(node)) return node.map((item) => this.resolve(document, item));
    if (typeof node !== "object" || node === null) return node;
    const ref = (node as Json).$ref;
    if (typeof ref === "string") {
      const target = ref
        .replace(/^#\//, "")
        .split("/")
        .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], document);
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
      return this.resolve(document, target);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, this.resolve(document, value)]));
  }
}

/** The texts of a generated server's OpenAPI documents, by version. */
function documentTexts(serverDir: string): [string, string][] {
  const dir = join(serverDir, "openapi");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => [file.slice(0, -5), readFileSync(join(dir, file), "utf8")]);
}

/** The OpenAPI documents of a generated server, by version. */
export function readDocuments(serverDir: string): Map<string, OpenApiDocument> {
  return new Map(documentTexts(serverDir).map(([version, text]) => [version, JSON.parse(text) as OpenApiDocument]));
}

/**
 * The validators made in this worker process, by the documents' texts: servers started again from
 * the same documents (a shared example, a server restarted) reuse the schemas Ajv compiled for them.
 */
const validators = new Map<string, ResponseValidator>();

/** A validator over a generated server's documents; undefined when it has none. */
export function serverValidator(serverDir: string): ResponseValidator | undefined {
  const texts = documentTexts(serverDir);
  if (texts.length === 0) return undefined;
  const key = JSON.stringify(texts);
  let validator = validators.get(key);
  if (!validator) {
    validator = new ResponseValidator(texts.map(([, text]) => JSON.parse(text) as OpenApiDocument));
    validators.set(key, validator);
  }
  return validator;
}

/**
 * A table's schema in a document as the server compiles it: without the annotations the documents
 * add to each property (its example, and beside a format of the contract's own the pattern the
 * server checks that format with), which change nothing the schema accepts.
 */
export function compiledSchema(schema: Json): Json {
  const properties = Object.entries(schema.properties as Record<string, Json>).map(([name, property]) => {
    const { examples: _examples, ...rest } = property;
    const own = FORMAT_PATTERNS[rest.format as keyof typeof FORMAT_PATTERNS];
    if (own !== undefined && rest.pattern === own) delete rest.pattern;
    return [name, rest];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}
