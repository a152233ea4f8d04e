import { join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { EXAMPLE_MANIFEST, SYSTEM_PROMPT } from "../../src/ai/prompt.ts";
import { AI_JSON_SCHEMA, OMITTED, fromAiForm, toAiForm, type JsonSchema } from "../../src/ai/schema.ts";
import { manifestText } from "../../src/ai/text.ts";
import { modelFromText, readManifest } from "../helpers/manifest.ts";
import {
  FIELD_TYPES,
  fieldObjectSchema,
  manifestSchema,
  querySchema,
  tableSchema,
  type RawManifest,
} from "../../src/manifest/schema.ts";
import { EXAMPLES } from "../helpers/generate.ts";

/** Every schema node of a JSON Schema, with its path. */
function* nodes(schema: JsonSchema, path = "$"): Generator<[string, JsonSchema]> {
  yield [path, schema];
  for (const [key, property] of Object.entries(schema.properties ?? {})) yield* nodes(property, `${path}.${key}`);
  if (schema.items) yield* nodes(schema.items, `${path}[]`);
  for (const [index, branch] of (schema.anyOf ?? []).entries()) yield* nodes(branch, `${path}|${index}`);
}

const aiValidator = z.fromJSONSchema(AI_JSON_SCHEMA as Parameters<typeof z.fromJSONSchema>[0]);

/** A manifest with every field in its object form, as fromAiForm gives it. */
function expanded(manifest: RawManifest): RawManifest {
  return {
    ...manifest,
    tables: Object.fromEntries(
      Object.entries(manifest.tables).map(([name, table]) => [
        name,
        {
          ...table,
          fields: Object.fromEntries(
            Object.entries(table.fields).map(([field, spec]) => [
              field,
              typeof spec === "string" ? { type: spec } : spec,
            ]),
          ),
        },
      ]),
    ),
  };
}

describe("the AI's JSON Schema", () => {
  it("meets OpenAI's strict mode: closed objects listing every property as required, no maps", () => {
    expect(AI_JSON_SCHEMA.type).toBe("object");
    expect(AI_JSON_SCHEMA.anyOf).toBeUndefined();
    expect(AI_JSON_SCHEMA.$schema).toBeUndefined();
    let objects = 0;
    for (const [path, node] of nodes(AI_JSON_SCHEMA)) {
      expect(node.propertyNames, path).toBeUndefined();
      expect(Array.isArray(node.type), path).toBe(false);
      if (node.type === "object") {
        objects++;
        expect(node.additionalProperties, path).toBe(false);
        expect(node.required, path).toEqual(Object.keys(node.properties ?? {}));
      }
      if (node.type === "array") expect(node.items, path).toBeDefined();
    }
    expect(objects).toBe(5); // the manifest, a table, a field, a query, a parameter
  });

  it("is derived from the validator's zod schema: every key but the omitted ones, maps as named entries", () => {
    const keys = (shape: object) => Object.keys(shape).filter((key) => !OMITTED.has(key));
    const root = AI_JSON_SCHEMA.properties!;
    expect(Object.keys(root)).toEqual(keys(manifestSchema.shape));
    const table = root.tables!.items!;
    expect(Object.keys(table.properties!)).toEqual(["name", ...keys(tableSchema.shape)]);
    const field = table.properties!.fields!.items!;
    expect(Object.keys(field.properties!)).toEqual(["name", ...keys(fieldObjectSchema.shape)]);
    const query = root.queries!.anyOf![0]!.items!;
    expect(Object.keys(query.properties!)).toEqual(["name", ...keys(querySchema.shape)]);
    const param = query.properties!.params!.anyOf![0]!.items!;
    expect(param.properties).toEqual({
      name: { type: "string" },
      type: { type: "string", enum: [...FIELD_TYPES], description: "One of the seven field types" },
    });
    // Required stays required; optional becomes nullable, keeping its description.
    expect(field.properties!.type).toEqual(param.properties!.type);
    expect(field.properties!.default).toEqual({
      description: 'Value used when the field is absent on create; "now" for DATETIME',
      anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" }],
    });
    expect(root.database).toEqual({ anyOf: [{ type: "string", enum: ["sqlite", "postgresql"] }, { type: "null" }] });
    // The id kinds the model may choose, bigint (PostgreSQL's, issue 30) among them.
    expect(table.properties!.id!.anyOf![0]).toMatchObject({ type: "string", enum: ["number", "uuid", "bigint"] });
  });
});

describe("the conversion of the model's answer", () => {
  it("turns named entries into maps and drops nulls", () => {
    const answer = {
      project: "library",
      database: null,
      versions: null,
      tables: [
        {
          name: "books",
          id: null,
          versions: null,
          fields: [
            { name: "title", type: "TEXT", required: true, unique: null, default: null, maxLength: 200 },
            { name: "lent", type: "BOOLEAN", required: null, unique: null, default: false, maxLength: null },
          ],
        },
      ],
      queries: [{ name: "lent_books", versions: ["v1"], params: null, sql: "SELECT id FROM books WHERE lent" }],
    };
    expect(fromAiForm(answer)).toEqual({
      manifest: {
        project: "library",
        tables: {
          books: {
            fields: {
              title: { type: "TEXT", required: true, maxLength: 200 },
              lent: { type: "BOOLEAN", default: false },
            },
          },
        },
        queries: { lent_books: { versions: ["v1"], sql: "SELECT id FROM books WHERE lent" } },
      },
      problems: [],
    });
    expect(
      fromAiForm({
        project: "p",
        tables: [],
        queries: [{ name: "q", params: [{ name: "since", type: "DATETIME" }], sql: "SELECT 1 WHERE :since" }],
      }).manifest,
    ).toEqual({
      project: "p",
      tables: {},
      queries: { q: { params: { since: "DATETIME" }, sql: "SELECT 1 WHERE :since" } },
    });
  });

  it("reports what a map cannot hold: a name given twice, an entry without a name", () => {
    const { manifest, problems } = fromAiForm({
      project: "p",
      tables: [
        { name: "items", fields: [{ name: "a", type: "TEXT" }, { name: "a", type: "NUMBER" }, { type: "TEXT" }] },
        { name: "items", fields: [] },
        "tags",
      ],
    });
    expect(problems).toEqual([
      { path: ["tables", "items", "fields", "a"], message: 'duplicate name "a": each name must appear once' },
      { path: ["tables", "items", "fields", 2], message: 'must be an object with a "name"' },
      { path: ["tables", "items"], message: 'duplicate name "items": each name must appear once' },
      { path: ["tables", 2], message: 'must be an object with a "name"' },
    ]);
    expect(manifest).toEqual({ project: "p", tables: { items: { fields: { a: { type: "TEXT" } } } } });
  });

  it("passes what does not fit the schema through, for the validator to report", () => {
    const answer = { project: 7, tables: { items: { fields: { a: "TEXT" } } }, extra: true, versions: ["v1", null] };
    expect(fromAiForm(answer).manifest).toEqual(answer);
    expect(() => modelFromText("draft.yaml", manifestText(fromAiForm(answer).manifest, "draft.yaml"))).toThrow(
      [
        "draft.yaml: 3 problems:",
        "  draft.yaml:1:10 project: must be a string, not number 7",
        "  draft.yaml:2:17 versions.1: is empty: it must be a string",
        '  draft.yaml:7:1 extra: unknown option "extra" (expected one of project, database, versions, tables, queries)',
      ].join("\n"),
    );
  });

  it("is the inverse of the manifest's form, which the schema accepts (examples/blog.yaml)", async () => {
    const { manifest } = await readManifest(join(EXAMPLES, "blog.yaml"));
    const ai = toAiForm(manifest);
    expect(aiValidator.safeParse(ai).error).toBeUndefined();
    const back = fromAiForm(JSON.parse(JSON.stringify(ai)));
    expect(back).toEqual({ manifest: expanded(manifest), problems: [] });
    // The written text reads back as the manifest, shorthands included.
    expect(parse(manifestText(back.manifest, "tablegen.yaml"))).toEqual(manifest);
    expect(JSON.parse(manifestText(back.manifest, "tablegen.json"))).toEqual(manifest);
  });

  it("refuses an answer the schema does not allow", () => {
    const ai = toAiForm(EXAMPLE_MANIFEST) as { tables: { fields: Record<string, unknown>[] }[] };
    ai.tables[0]!.fields[0]!.renamedFrom = "full_name";
    delete ai.tables[0]!.fields[1]!.unique;
    const issues = aiValidator.safeParse(ai).error?.issues.map((issue) => `${issue.code} ${issue.path.join(".")}`);
    expect(issues).toEqual(["unrecognized_keys tables.0.fields.0", "invalid_union tables.0.fields.1.unique"]);
  });
});

describe("the manifest's text", () => {
  it("is YAML in the examples' style: shorthands, one-line fields and params, SQL blocks, a comment", () => {
    const manifest = {
      project: "shop",
      versions: ["v1", "v2"],
      tables: {
        items: {
          fields: {
            name: { type: "TEXT", required: true },
            code: { type: "TEXT", default: "true" },
            note: { type: "PARAGRAPH" },
          },
        },
      },
      queries: {
        cheap: { params: { code: "TEXT" }, sql: "SELECT id\nFROM items\nWHERE code = :code\n" },
        all: { sql: "SELECT id FROM items" },
      },
    };
    expect(manifestText(manifest, "tablegen.yaml", "Drafted by test:\n  a shop")).toBe(
      [
        "# Drafted by test:",
        "#   a shop",
        "",
        "project: shop",
        "versions: [ v1, v2 ]",
        "tables:",
        "  items:",
        "    fields:",
        "      name: { type: TEXT, required: true }",
        '      code: { type: TEXT, default: "true" }',
        "      note: PARAGRAPH",
        "queries:",
        "  cheap:",
        "    params: { code: TEXT }",
        "    sql: |",
        "      SELECT id",
        "      FROM items",
        "      WHERE code = :code",
        "  all:",
        "    sql: SELECT id FROM items",
        "",
      ].join("\n"),
    );
  });
});

describe("the system prompt", () => {
  it("teaches the types and shows a valid example in the model's form", () => {
    for (const type of FIELD_TYPES) expect(SYSTEM_PROMPT).toContain(`${type}:`);
    for (const topic of ["# Names", "# Relationships", "# Custom queries", "onDelete", "setNull", "cascade"])
      expect(SYSTEM_PROMPT).toContain(topic);
    const example = toAiForm(EXAMPLE_MANIFEST);
    expect(SYSTEM_PROMPT).toContain(JSON.stringify(example));
    expect(aiValidator.safeParse(example).error).toBeUndefined();
    const model = modelFromText("example.yaml", manifestText(EXAMPLE_MANIFEST, "example.yaml"));
    expect(model.tables.map((table) => table.name)).toEqual(["authors", "posts", "comments"]);
    expect(model.queries.map((query) => query.name)).toEqual(["author_posts"]);
  });
});
