import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { readModel } from "../helpers/manifest.ts";
import { parseManifest } from "../../src/manifest/load.ts";
import { ManifestError, validateManifest } from "../../src/manifest/validate.ts";

/** The located problems of a manifest text; fails the test when it is valid. */
function problems(text: string, file = "m.yaml"): readonly string[] {
  try {
    validateManifest(parseManifest(file, text));
  } catch (error) {
    if (error instanceof ManifestError) return error.problems;
    throw error;
  }
  throw new Error("the manifest is valid");
}

function valid(text: string, file = "m.yaml"): void {
  expect(() => validateManifest(parseManifest(file, text))).not.toThrow();
}

/** A manifest with one table `t` whose fields are given as YAML lines (4 spaces deep): they start on line 5. */
function withFields(...lines: string[]): string {
  return ["project: x", "tables:", "  t:", "    fields:", ...lines.map((line) => `      ${line}`), ""].join("\n");
}

/** A manifest with a table `t` (a TEXT field `a`) and the query lines given, which start on line 7. */
function withQuery(...lines: string[]): string {
  return [
    "project: x",
    "tables:",
    "  t:",
    "    fields:",
    "      a: TEXT",
    "queries:",
    ...lines.map((line) => `  ${line}`),
    "",
  ].join("\n");
}

describe("valid manifests", () => {
  it("accepts both examples", async () => {
    await expect(readModel("examples/blog.yaml")).resolves.toMatchObject({ project: "blog" });
    await expect(readModel("examples/tasks.yaml")).resolves.toMatchObject({ project: "tasks" });
  });

  it("accepts the smallest manifest", () => {
    valid("project: x\ntables:\n  t:\n    fields:\n      a: TEXT\n");
  });

  it("accepts a text default that happens to read now", () => {
    valid(withFields("a: { type: TEXT, default: now }"));
  });
});

describe("indexes", () => {
  const table = (indexes: string) =>
    [
      "project: x",
      "tables:",
      "  t:",
      "    fields:",
      "      a: TEXT",
      "      b: { type: NUMBER, index: true }",
      `    indexes: ${indexes}`,
      "",
    ].join("\n");

  it("accepts index: true on a field and composite indexes of the table's fields (id too)", () => {
    valid(table("[[a, b], [b, id]]"));
  });

  it("refuses a composite index of one field, an unknown or repeated field, and a repeated index", () => {
    expect(problems(table("[[a], [a, c], [b, b], [a, b], [a, b]]"))).toEqual([
      "m.yaml:7:15 tables.t.indexes.0: a composite index names at least two fields (index: true indexes one)",
      'm.yaml:7:24 tables.t.indexes.1.1: "c" is not a field of this table',
      'm.yaml:7:32 tables.t.indexes.2.1: "b" is named twice in the index',
      "m.yaml:7:44 tables.t.indexes.4: duplicate index: [a, b] is listed twice",
    ]);
  });

  it("refuses an index option that is not a boolean, and indexes that are not lists of names", () => {
    expect(problems(withFields("a: { type: TEXT, index: yes }"))).toEqual([
      'm.yaml:5:31 tables.t.fields.a.index: must be true or false, not string "yes"',
    ]);
    expect(problems(table("a"))).toEqual(['m.yaml:7:14 tables.t.indexes: must be a list, not string "a"']);
  });
});

describe("project and versions", () => {
  it("refuses a bad project name", () => {
    expect(problems("project: My_Blog\ntables:\n  t:\n    fields:\n      a: TEXT\n")).toEqual([
      'm.yaml:1:10 project: "My_Blog" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
    ]);
  });

  it("refuses a project name longer than 63 characters", () => {
    const name = "a".repeat(64);
    expect(problems(`project: ${name}\ntables:\n  t:\n    fields:\n      a: TEXT\n`)).toEqual([
      `m.yaml:1:10 project: "${name}" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`,
    ]);
  });

  it("requires project and tables", () => {
    expect(problems("database: sqlite\n")).toEqual([
      "m.yaml:1:1 project: is required",
      "m.yaml:1:1 tables: is required",
    ]);
  });

  it("refuses an empty manifest", () => {
    expect(problems("")).toEqual(["m.yaml:1:1 (manifest): is empty: a manifest needs at least project and tables"]);
    expect(problems("# nothing yet\n")).toEqual([
      "m.yaml:1:1 (manifest): is empty: a manifest needs at least project and tables",
    ]);
  });

  it("refuses a manifest that is not an object", () => {
    expect(problems("- a\n")).toEqual(["m.yaml:1:1 (manifest): must be an object, not a list"]);
  });

  it("refuses an unknown database", () => {
    expect(problems("project: x\ndatabase: mysql\ntables:\n  t:\n    fields:\n      a: TEXT\n")).toEqual([
      'm.yaml:2:11 database: must be one of sqlite, postgresql, not "mysql"',
    ]);
  });

  it("refuses a bad version label", () => {
    expect(
      problems("project: x\nversions: [v1, V2, version3, v]\ntables:\n  t:\n    fields:\n      a: TEXT\n"),
    ).toEqual([
      'm.yaml:2:16 versions.1: "V2" is not a version label: "v" followed by a number, like v1',
      'm.yaml:2:20 versions.2: "version3" is not a version label: "v" followed by a number, like v1',
      'm.yaml:2:30 versions.3: "v" is not a version label: "v" followed by a number, like v1',
    ]);
  });

  it("refuses a version label that is not a string", () => {
    expect(problems("project: x\nversions: [1]\ntables:\n  t:\n    fields:\n      a: TEXT\n")).toEqual([
      "m.yaml:2:12 versions.0: must be a string, not number 1",
    ]);
  });

  it("refuses a duplicate version", () => {
    expect(problems("project: x\nversions: [v1, v2, v1]\ntables:\n  t:\n    fields:\n      a: TEXT\n")).toEqual([
      'm.yaml:2:20 versions.2: duplicate version "v1"',
    ]);
  });

  it("refuses an empty version list", () => {
    expect(problems("project: x\nversions: []\ntables:\n  t:\n    fields:\n      a: TEXT\n")).toEqual([
      "m.yaml:2:11 versions: must list at least one version",
    ]);
  });

  it("refuses a manifest without tables", () => {
    expect(problems("project: x\ntables: {}\n")).toEqual(["m.yaml:2:9 tables: must define at least one table"]);
    expect(problems("project: x\ntables:\n")).toEqual(["m.yaml:2:1 tables: is empty: it must be an object"]);
  });

  it("refuses table and query versions that the project does not have", () => {
    const text = [
      "project: x",
      "versions: [v1, v2]",
      "tables:",
      "  t:",
      "    versions: [v2, v3]",
      "    fields:",
      "      a: TEXT",
      "queries:",
      "  q:",
      "    versions: [v4]",
      "    sql: SELECT a FROM t",
      "",
    ].join("\n");
    expect(problems(text)).toEqual([
      "m.yaml:5:20 tables.t.versions.1: v3 is not one of the project's versions (v1, v2)",
      "m.yaml:10:16 queries.q.versions.0: v4 is not one of the project's versions (v1, v2)",
    ]);
  });

  it("checks table versions against the default versions [v1]", () => {
    expect(problems("project: x\ntables:\n  t:\n    versions: [v2]\n    fields:\n      a: TEXT\n")).toEqual([
      "m.yaml:4:16 tables.t.versions.0: v2 is not one of the project's versions (v1)",
    ]);
  });

  it("refuses an empty table version list", () => {
    expect(problems("project: x\ntables:\n  t:\n    versions: []\n    fields:\n      a: TEXT\n")).toEqual([
      "m.yaml:4:15 tables.t.versions: must list at least one version",
    ]);
  });
});

describe("names", () => {
  it("refuses a bad table name, at the name", () => {
    expect(problems("project: x\ntables:\n  Users:\n    fields:\n      a: TEXT\n")).toEqual([
      'm.yaml:3:3 tables.Users: "Users" is not a valid table name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
    ]);
  });

  it("refuses a table name that YAML reads as a number", () => {
    expect(problems("project: x\ntables:\n  123:\n    fields:\n      a: TEXT\n")).toEqual([
      'm.yaml:3:3 tables.123: "123" is not a valid table name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
    ]);
  });

  it("refuses a bad field name, at the name", () => {
    expect(problems(withFields("first-name: TEXT"))).toEqual([
      'm.yaml:5:7 tables.t.fields.first-name: "first-name" is not a valid field name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
    ]);
  });

  it("refuses bad query and parameter names", () => {
    expect(
      problems(withQuery("Recent:", "    params: { Since: DATETIME }", "    sql: SELECT a FROM t WHERE a > :Since")),
    ).toEqual([
      'm.yaml:7:3 queries.Recent: "Recent" is not a valid query name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
      'm.yaml:8:17 queries.Recent.params.Since: "Since" is not a valid parameter name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
    ]);
  });

  it("reserves the field name id", () => {
    expect(problems(withFields("name: TEXT", "id: NUMBER"))).toEqual([
      'm.yaml:6:7 tables.t.fields.id: "id" is a reserved field name: every table has an implicit id',
    ]);
  });

  it("reserves constructor, a name every JavaScript object has, for tables, fields, API names, queries and parameters (issue 25)", () => {
    const manifest = [
      "project: x",
      "tables:",
      "  constructor:",
      "    fields:",
      "      constructor: TEXT",
      "      maker: { type: TEXT, names: { v1: constructor } }",
      "queries:",
      "  constructor:",
      "    params: { constructor: TEXT }",
      "    sql: SELECT maker FROM t WHERE maker = :constructor",
      "",
    ].join("\n");
    expect(problems(manifest)).toEqual([
      'm.yaml:3:3 tables.constructor: "constructor" is a reserved table name: every JavaScript object has a constructor',
      'm.yaml:5:7 tables.constructor.fields.constructor: "constructor" is a reserved field name: every JavaScript object has a constructor',
      'm.yaml:6:41 tables.constructor.fields.maker.names.v1: "constructor" is a reserved field name: every JavaScript object has a constructor',
      'm.yaml:6:41 tables.constructor.fields.maker.names.v1: duplicate name in v1: "constructor" is also the field "constructor"',
      'm.yaml:8:3 queries.constructor: "constructor" is a reserved query name: every JavaScript object has a constructor',
      'm.yaml:9:15 queries.constructor.params.constructor: "constructor" is a reserved parameter name: every JavaScript object has a constructor',
    ]);
  });

  it("reserves the table names prisma and prisma_client", () => {
    expect(
      problems(
        "project: x\ntables:\n  prisma:\n    fields:\n      a: TEXT\n  prisma_client:\n    fields:\n      a: TEXT\n",
      ),
    ).toEqual([
      'm.yaml:3:3 tables.prisma: "prisma" is a reserved table name',
      'm.yaml:6:3 tables.prisma_client: "prisma_client" is a reserved table name',
    ]);
  });

  it("reserves the database's table name prefixes", () => {
    expect(
      problems(
        "project: x\ntables:\n  sqlite_stats:\n    fields:\n      a: TEXT\n  pg_things:\n    fields:\n      a: TEXT\n",
      ),
    ).toEqual([
      'm.yaml:3:3 tables.sqlite_stats: "sqlite_stats" is a reserved table name: names starting with sqlite_ belong to the database',
      'm.yaml:6:3 tables.pg_things: "pg_things" is a reserved table name: names starting with pg_ belong to the database',
    ]);
  });

  it("accepts a table named index: no generated file takes a table's name", () => {
    valid("project: x\ntables:\n  index:\n    fields:\n      a: TEXT\n");
  });

  it("reserves table names whose Prisma model would be a Prisma type", () => {
    expect(
      problems(
        "project: x\ntables:\n  string:\n    fields:\n      a: TEXT\n  date_time:\n    fields:\n      a: TEXT\n",
      ),
    ).toEqual([
      'm.yaml:3:3 tables.string: "string" is a reserved table name: its Prisma model would be String, a name Prisma keeps for itself',
      'm.yaml:6:3 tables.date_time: "date_time" is a reserved table name: its Prisma model would be DateTime, a name Prisma keeps for itself',
    ]);
  });

  it("refuses two tables that become the same model", () => {
    expect(
      problems("project: x\ntables:\n  a_b:\n    fields:\n      a: TEXT\n  a__b:\n    fields:\n      a: TEXT\n"),
    ).toEqual(['m.yaml:6:3 tables.a__b: duplicate name: "a__b" and "a_b" both become the model AB']);
  });

  it("refuses two queries that become the same identifier", () => {
    expect(problems(withQuery("a_b:", "    sql: SELECT a FROM t", "a__b:", "    sql: SELECT a FROM t"))).toEqual([
      'm.yaml:9:3 queries.a__b: duplicate name: "a__b" and "a_b" both become AB in the generated code',
    ]);
  });

  it("refuses duplicate keys as a syntax error", () => {
    expect(() => parseManifest("m.yaml", withFields("a: TEXT", "b: TEXT", "a: NUMBER"))).toThrow(
      new UserError('m.yaml:7:7: invalid YAML: duplicate key "a"'),
    );
  });
});

describe("types and options", () => {
  it("refuses an unknown type in the shorthand", () => {
    expect(problems(withFields("nick: STRNG"))).toEqual([
      'm.yaml:5:13 tables.t.fields.nick: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
    ]);
  });

  it("refuses an unknown type in the object form", () => {
    expect(problems(withFields("nick: { type: STRNG }"))).toEqual([
      'm.yaml:5:21 tables.t.fields.nick.type: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
    ]);
  });

  it("suggests the type meant", () => {
    expect(problems(withFields("a: text", "b: { type: STRING }", "c: INTEGER"))).toEqual([
      'm.yaml:5:10 tables.t.fields.a: unknown type "text": did you mean TEXT? (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
      'm.yaml:6:18 tables.t.fields.b.type: unknown type "STRING": did you mean TEXT? (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
      'm.yaml:7:10 tables.t.fields.c: unknown type "INTEGER": did you mean NUMBER with integer: true? (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
    ]);
  });

  it("refuses an unknown parameter type", () => {
    expect(problems(withQuery("q:", "    params: { a: STRNG }", "    sql: SELECT a FROM t WHERE a = :a"))).toEqual([
      'm.yaml:8:20 queries.q.params.a: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
    ]);
  });

  it("tells option names from entries named like them", () => {
    const text = [
      "project: x",
      "tables:",
      "  fields:",
      "    id: serial",
      "    fields:",
      "      default: STRNG",
      "      type: { type: TEXT, default: 1 }",
      "",
    ].join("\n");
    expect(problems(text)).toEqual([
      'm.yaml:4:9 tables.fields.id: must be one of number, uuid, bigint, not "serial"',
      'm.yaml:6:16 tables.fields.fields.default: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
      "m.yaml:7:36 tables.fields.fields.type.default: must be a string for a TEXT field, not number 1",
    ]);
  });

  it("requires a type in the object form", () => {
    expect(problems(withFields("nick: { required: true }"))).toEqual([
      "m.yaml:5:7 tables.t.fields.nick.type: is required",
    ]);
  });

  it("refuses an empty field", () => {
    expect(problems(withFields("nick:"))).toEqual([
      "m.yaml:5:7 tables.t.fields.nick: is empty: it must be a type name or an object with a type",
    ]);
  });

  it("refuses an unknown option key, at the key, listing the options", () => {
    expect(problems(withFields("nick: { type: TEXT, size: 3 }"))).toEqual([
      'm.yaml:5:27 tables.t.fields.nick.size: unknown option "size" (expected one of type, required, unique, default, maxLength, integer, references, onDelete, as, reverse, renamedFrom, index, description, example, versions, names, inVersions)',
    ]);
  });

  it("takes a description on a table, a field and a query, which must be text", () => {
    valid(
      [
        "project: x",
        "tables:",
        "  t:",
        "    description: The things.",
        "    fields:",
        "      a: { type: TEXT, description: What a thing is called. }",
        "queries:",
        "  q:",
        "    description: Every thing.",
        "    sql: SELECT a FROM t",
        "",
      ].join("\n"),
    );
    expect(problems(withFields("nick: { type: TEXT, description: 3 }"))).toEqual([
      "m.yaml:5:40 tables.t.fields.nick.description: must be a string, not number 3",
    ]);
  });

  it("suggests the option meant", () => {
    expect(problems(withFields("nick: { type: TEXT, maxlength: 3 }"))).toEqual([
      'm.yaml:5:27 tables.t.fields.nick.maxlength: unknown option "maxlength" (did you mean "maxLength"?)',
    ]);
    expect(problems("project: x\ntables:\n  t:\n    feilds:\n      a: TEXT\n")).toEqual([
      "m.yaml:3:3 tables.t.fields: is required",
      'm.yaml:4:5 tables.t.feilds: unknown option "feilds" (did you mean "fields"?)',
    ]);
  });

  it("refuses unknown keys at the top, in a table and in a query", () => {
    const text = [
      "project: x",
      "owner: me",
      "tables:",
      "  t:",
      "    public: true",
      "    fields:",
      "      a: TEXT",
      "queries:",
      "  q:",
      "    cache: 10",
      "    sql: SELECT a FROM t",
      "",
    ];
    expect(problems(text.join("\n"))).toEqual([
      'm.yaml:2:1 owner: unknown option "owner" (expected one of project, database, versions, tables, queries)',
      'm.yaml:5:5 tables.t.public: unknown option "public" (expected one of id, versions, renamedFrom, fields, indexes, description)',
      'm.yaml:10:5 queries.q.cache: unknown option "cache" (expected one of versions, params, sql, description)',
    ]);
  });

  it("refuses option values of the wrong type", () => {
    expect(problems(withFields("a: { type: TEXT, required: yes, unique: 1 }"))).toEqual([
      'm.yaml:5:34 tables.t.fields.a.required: must be true or false, not string "yes"',
      "m.yaml:5:47 tables.t.fields.a.unique: must be true or false, not number 1",
    ]);
  });

  it("refuses an unknown id kind and onDelete", () => {
    const text =
      "project: x\ntables:\n  t:\n    id: serial\n    fields:\n      t_id: { type: NUMBER, references: t, onDelete: nullify }\n";
    expect(problems(text)).toEqual([
      'm.yaml:4:9 tables.t.id: must be one of number, uuid, bigint, not "serial"',
      'm.yaml:6:54 tables.t.fields.t_id.onDelete: must be one of restrict, cascade, setNull, not "nullify"',
    ]);
  });

  it("refuses maxLength on a type that is not text", () => {
    expect(problems(withFields("n: { type: NUMBER, maxLength: 10 }", "b: { type: BOOLEAN, maxLength: 1 }"))).toEqual([
      "m.yaml:5:37 tables.t.fields.n.maxLength: applies only to TEXT, EMAIL, PHONE and PARAGRAPH fields, not NUMBER",
      "m.yaml:6:38 tables.t.fields.b.maxLength: applies only to TEXT, EMAIL, PHONE and PARAGRAPH fields, not BOOLEAN",
    ]);
  });

  it("refuses a maxLength that is not a positive whole number", () => {
    expect(
      problems(
        withFields(
          "a: { type: TEXT, maxLength: 0 }",
          "b: { type: PARAGRAPH, maxLength: -5 }",
          "c: { type: TEXT, maxLength: 2.5 }",
        ),
      ),
    ).toEqual([
      "m.yaml:5:35 tables.t.fields.a.maxLength: must be a whole number of at least 1",
      "m.yaml:6:40 tables.t.fields.b.maxLength: must be a whole number of at least 1",
      "m.yaml:7:35 tables.t.fields.c.maxLength: must be a whole number of at least 1",
    ]);
    expect(problems(withFields("a: { type: TEXT, maxLength: .inf }"))).toEqual([
      "m.yaml:5:35 tables.t.fields.a.maxLength: must be a finite number, not Infinity",
    ]);
  });

  it("refuses integer on a type other than NUMBER", () => {
    expect(problems(withFields("a: { type: TEXT, integer: true }"))).toEqual([
      "m.yaml:5:33 tables.t.fields.a.integer: applies only to NUMBER fields, not TEXT",
    ]);
  });
});

describe("references", () => {
  it("refuses a reference to a missing table, suggesting a close name", () => {
    const text =
      "project: x\ntables:\n  users:\n    fields:\n      a: TEXT\n  posts:\n    fields:\n      user_id: { type: NUMBER, references: user }\n      tag_id: { type: NUMBER, references: tags }\n";
    expect(problems(text)).toEqual([
      'm.yaml:8:44 tables.posts.fields.user_id.references: refers to a table that does not exist: "user" (did you mean "users"?)',
      'm.yaml:9:43 tables.posts.fields.tag_id.references: refers to a table that does not exist: "tags"',
    ]);
  });

  it("refuses a reference on a field that is not a NUMBER", () => {
    expect(problems(withFields("t_id: { type: TEXT, references: t }"))).toEqual([
      "m.yaml:5:39 tables.t.fields.t_id.references: a reference must be a NUMBER field, not TEXT",
    ]);
  });

  it("refuses onDelete without references", () => {
    expect(problems(withFields("n: { type: NUMBER, onDelete: cascade }"))).toEqual([
      "m.yaml:5:36 tables.t.fields.n.onDelete: applies only to a field with references",
    ]);
  });

  it("refuses setNull on a required field", () => {
    expect(problems(withFields("t_id: { type: NUMBER, required: true, references: t, onDelete: setNull }"))).toEqual([
      "m.yaml:5:70 tables.t.fields.t_id.onDelete: setNull needs an optional field, but this one is required",
    ]);
  });

  it("accepts setNull on an optional field and a self-reference", () => {
    valid(withFields("parent_id: { type: NUMBER, references: t, onDelete: setNull }"));
  });
});

describe("examples", () => {
  it("accepts an example of the field's type, format and length, and a reference's id", () => {
    valid(
      [
        "project: x",
        "tables:",
        "  tags:",
        "    id: uuid",
        "    fields: { name: TEXT }",
        "  t:",
        "    fields:",
        "      title: { type: TEXT, required: true, maxLength: 5, example: Hello }",
        "      email: { type: EMAIL, example: grace@example.com }",
        '      phone: { type: PHONE, example: "(020) 7946 0958" }',
        "      n: { type: NUMBER, integer: true, example: -3 }",
        "      at: { type: DATETIME, example: 1815-12-10T00:00:00Z }",
        "      ok: { type: BOOLEAN, example: false }",
        "      tag_id: { type: NUMBER, references: tags, example: 00000000-0000-4000-8000-000000000001 }",
        "      t_id: { type: NUMBER, references: t, example: 2 }",
        "",
      ].join("\n"),
    );
  });

  it("refuses an example the field's type, format or maxLength refuses, at the example, each in one message", () => {
    expect(
      problems(
        withFields(
          "title: { type: TEXT, required: true, maxLength: 5, example: Hello world }",
          "email: { type: EMAIL, example: ada }",
          'phone: { type: PHONE, example: "12" }',
          'n: { type: NUMBER, integer: true, example: "3" }',
          "m: { type: NUMBER, integer: true, example: 1.5 }",
          "at: { type: DATETIME, example: now }",
          "on: { type: DATETIME, example: 2024-02-30T00:00:00Z }",
          "ok: { type: BOOLEAN, example: yes }",
          'name: { type: TEXT, required: true, example: "" }',
        ),
      ),
    ).toEqual([
      "m.yaml:5:67 tables.t.fields.title.example: is 11 characters long, more than the field's maxLength of 5",
      'm.yaml:6:38 tables.t.fields.email.example: must be a valid e-mail address, not "ada"',
      'm.yaml:7:38 tables.t.fields.phone.example: must be a valid phone number (7 to 15 digits), not "12"',
      'm.yaml:8:50 tables.t.fields.n.example: must be a number for a NUMBER field, not string "3"',
      "m.yaml:9:50 tables.t.fields.m.example: must be a whole number for an integer field, not 1.5",
      'm.yaml:10:38 tables.t.fields.at.example: must be a date-time with a time zone, like 2024-01-31T12:00:00Z, not string "now"',
      'm.yaml:11:38 tables.t.fields.on.example: must be a date-time with a time zone, like 2024-01-31T12:00:00Z, not string "2024-02-30T00:00:00Z"',
      'm.yaml:12:37 tables.t.fields.ok.example: must be true or false for a BOOLEAN field, not string "yes"',
      "m.yaml:13:52 tables.t.fields.name.example: must not be empty: a required field refuses the empty string",
    ]);
  });

  it("refuses a reference's example that cannot be an id of the table it refers to", () => {
    const text = [
      "project: x",
      "tables:",
      "  users:",
      "    fields: { a: TEXT }",
      "  tags:",
      "    id: uuid",
      "    fields: { a: TEXT }",
      "  posts:",
      "    fields:",
      "      user_id: { type: NUMBER, references: users, example: 0 }",
      "      tag_id: { type: NUMBER, references: tags, example: 1 }",
      "",
    ].join("\n");
    expect(problems(text)).toEqual([
      "m.yaml:10:60 tables.posts.fields.user_id.example: must be the id of a record in users, a whole number from 1 to 2147483647, not number 0",
      "m.yaml:11:58 tables.posts.fields.tag_id.example: must be a lowercase UUID for a reference to tags (its id is a uuid), not number 1",
    ]);
  });
});

// Issue 30: 64-bit ids are PostgreSQL's; references to them hold strings of digits.
describe("bigint ids", () => {
  const manifest = (database: string | undefined, ...fields: string[]) =>
    [
      "project: x",
      ...(database ? [`database: ${database}`] : []),
      "tables:",
      "  users:",
      "    id: bigint",
      "    fields: { a: TEXT }",
      "  posts:",
      "    fields:",
      ...fields.map((field) => `      ${field}`),
      "",
    ].join("\n");

  it("are accepted on PostgreSQL, with references whose default and example are strings of digits", () => {
    const text = manifest(
      "postgresql",
      'user_id: { type: NUMBER, references: users, example: "9007199254740993" }',
      'editor_id: { type: NUMBER, references: users, default: "-9223372036854775808", reverse: edited }',
    );
    expect(() => validateManifest(parseManifest("m.yaml", text))).not.toThrow();
  });

  it("are refused on SQLite, named or by default, at the table's id", () => {
    const refusal = "bigint ids need database: postgresql; a SQLite table's id is number or uuid";
    expect(problems(manifest("sqlite", "user_id: { type: NUMBER, references: users }"))).toEqual([
      `m.yaml:5:9 tables.users.id: ${refusal}`,
    ]);
    expect(problems(manifest(undefined, "user_id: { type: NUMBER, references: users }"))).toEqual([
      `m.yaml:4:9 tables.users.id: ${refusal}`,
    ]);
  });

  it("refuse a reference's example or default that is no 64-bit integer as a string of digits", () => {
    expect(
      problems(
        manifest(
          "postgresql",
          "user_id: { type: NUMBER, references: users, example: 1 }",
          'editor_id: { type: NUMBER, references: users, default: "9223372036854775808", reverse: edited }',
        ),
      ),
    ).toEqual([
      "m.yaml:9:60 tables.posts.fields.user_id.example: must be a 64-bit integer as a string of digits for a reference to users (its id is a bigint), not number 1",
      'm.yaml:10:62 tables.posts.fields.editor_id.default: must be a 64-bit integer as a string of digits for a reference to users (its id is a bigint), not string "9223372036854775808"',
    ]);
  });
});

describe("defaults", () => {
  it("refuses a NUMBER default that is not a number", () => {
    expect(problems(withFields('n: { type: NUMBER, default: "3" }', "m: { type: NUMBER, default: true }"))).toEqual([
      'm.yaml:5:35 tables.t.fields.n.default: must be a number for a NUMBER field, not string "3"',
      "m.yaml:6:35 tables.t.fields.m.default: must be a number for a NUMBER field, not boolean true",
    ]);
  });

  it("accepts a fractional NUMBER default", () => {
    valid(withFields("n: { type: NUMBER, default: 2.5 }"));
  });

  it("refuses an infinite NUMBER default", () => {
    expect(problems(withFields("n: { type: NUMBER, default: .inf }"))).toEqual([
      "m.yaml:5:35 tables.t.fields.n.default: must be a finite number, not Infinity",
    ]);
  });

  it("refuses a fractional or out-of-range default on an integer NUMBER", () => {
    expect(
      problems(
        withFields(
          "n: { type: NUMBER, integer: true, default: 1.5 }",
          "m: { type: NUMBER, integer: true, default: 3000000000 }",
        ),
      ),
    ).toEqual([
      "m.yaml:5:50 tables.t.fields.n.default: must be a whole number for an integer field, not 1.5",
      "m.yaml:6:50 tables.t.fields.m.default: is out of range for an integer field (-2147483648 to 2147483647)",
    ]);
  });

  it("refuses a reference default that cannot be an id", () => {
    const text = [
      "project: x",
      "tables:",
      "  users:",
      "    fields:",
      "      a: TEXT",
      "  tags:",
      "    id: uuid",
      "    fields:",
      "      a: TEXT",
      "  posts:",
      "    fields:",
      "      user_id: { type: NUMBER, references: users, default: 0 }",
      "      tag_id: { type: NUMBER, references: tags, default: 1 }",
      "      owner_id: { type: NUMBER, references: users, default: 1 }",
      '      label_id: { type: NUMBER, references: tags, default: "0b0e7c1e-8a43-4d1e-9a8e-2f6c1d1e2a3b" }',
      "",
    ].join("\n");
    expect(problems(text)).toEqual([
      "m.yaml:12:60 tables.posts.fields.user_id.default: must be the id of a record in users, a whole number from 1 to 2147483647, not number 0",
      "m.yaml:13:58 tables.posts.fields.tag_id.default: must be a lowercase UUID for a reference to tags (its id is a uuid), not number 1",
    ]);
  });

  it("refuses a BOOLEAN default that is not true or false", () => {
    expect(
      problems(
        withFields(
          "b: { type: BOOLEAN, default: yes }",
          'c: { type: BOOLEAN, default: "true" }',
          "d: { type: BOOLEAN, default: 1 }",
        ),
      ),
    ).toEqual([
      'm.yaml:5:36 tables.t.fields.b.default: must be true or false for a BOOLEAN field, not string "yes"',
      'm.yaml:6:36 tables.t.fields.c.default: must be true or false for a BOOLEAN field, not string "true"',
      "m.yaml:7:36 tables.t.fields.d.default: must be true or false for a BOOLEAN field, not number 1",
    ]);
  });

  it("refuses a DATETIME default that is not now or a date-time with an offset", () => {
    const text = withFields(
      "a: { type: DATETIME, default: 2024-01-31 }",
      "b: { type: DATETIME, default: 2024-01-31T12:00:00 }",
      "c: { type: DATETIME, default: 2024-02-30T12:00:00Z }",
      "d: { type: DATETIME, default: 0 }",
      "e: { type: DATETIME, default: NOW }",
    );
    const expected = (line: number, field: string, shown: string) =>
      `m.yaml:${line}:37 tables.t.fields.${field}.default: must be "now" or a date-time with a time zone, like 2024-01-31T12:00:00Z, not ${shown}`;
    expect(problems(text)).toEqual([
      expected(5, "a", 'string "2024-01-31"'),
      expected(6, "b", 'string "2024-01-31T12:00:00"'),
      expected(7, "c", 'string "2024-02-30T12:00:00Z"'),
      expected(8, "d", "number 0"),
      expected(9, "e", 'string "NOW"'),
    ]);
  });

  it("accepts now and date-times with an offset", () => {
    valid(
      withFields(
        "a: { type: DATETIME, default: now }",
        "b: { type: DATETIME, default: 2024-01-31T12:00:00+02:00 }",
        "c: { type: DATETIME, default: 2024-01-31 12:00:00.5z }",
      ),
    );
  });

  it("refuses now on a type other than DATETIME and the text types", () => {
    expect(problems(withFields("n: { type: NUMBER, default: now }", "b: { type: BOOLEAN, default: now }"))).toEqual([
      'm.yaml:5:35 tables.t.fields.n.default: "now" is only for DATETIME fields, not NUMBER',
      'm.yaml:6:36 tables.t.fields.b.default: "now" is only for DATETIME fields, not BOOLEAN',
    ]);
  });

  it("refuses a text default that is not a string", () => {
    expect(problems(withFields("a: { type: TEXT, default: 12 }", "b: { type: PARAGRAPH, default: false }"))).toEqual([
      "m.yaml:5:33 tables.t.fields.a.default: must be a string for a TEXT field, not number 12",
      "m.yaml:6:38 tables.t.fields.b.default: must be a string for a PARAGRAPH field, not boolean false",
    ]);
  });

  it("refuses a null or list default", () => {
    expect(problems(withFields("a: { type: TEXT, default: null }", "b: { type: TEXT, default: [x] }"))).toEqual([
      "m.yaml:5:33 tables.t.fields.a.default: must be a string, a number, true or false, not null",
      "m.yaml:6:33 tables.t.fields.b.default: must be a string, a number, true or false, not a list",
    ]);
  });

  it("refuses a TEXT default longer than maxLength, counting characters", () => {
    expect(
      problems(
        withFields(
          "a: { type: TEXT, maxLength: 3, default: abcd }",
          "b: { type: TEXT, maxLength: 3, default: ééé }",
          `c: { type: TEXT, default: ${"x".repeat(256)} }`,
        ),
      ),
    ).toEqual([
      "m.yaml:5:47 tables.t.fields.a.default: is 4 characters long, more than the field's maxLength of 3",
      "m.yaml:7:33 tables.t.fields.c.default: is 256 characters long, more than the field's maxLength of 255",
    ]);
  });

  it("refuses an empty default on a required text field", () => {
    expect(problems(withFields('a: { type: TEXT, required: true, default: "" }'))).toEqual([
      "m.yaml:5:49 tables.t.fields.a.default: must not be empty: a required field refuses the empty string",
    ]);
    valid(withFields('a: { type: TEXT, default: "" }'));
  });

  it("refuses an invalid EMAIL default", () => {
    expect(
      problems(
        withFields(
          "a: { type: EMAIL, default: not-an-email }",
          "b: { type: EMAIL, default: a@localhost }",
          '"c": { type: EMAIL, default: "a b@x.org" }',
        ),
      ),
    ).toEqual([
      'm.yaml:5:34 tables.t.fields.a.default: must be a valid e-mail address, not "not-an-email"',
      'm.yaml:6:34 tables.t.fields.b.default: must be a valid e-mail address, not "a@localhost"',
      'm.yaml:7:36 tables.t.fields.c.default: must be a valid e-mail address, not "a b@x.org"',
    ]);
    valid(withFields("a: { type: EMAIL, default: ana@example.org }"));
  });

  it("refuses an invalid PHONE default", () => {
    expect(
      problems(
        withFields(
          "a: { type: PHONE, default: '12345' }",
          "b: { type: PHONE, default: call-me }",
          "c: { type: PHONE, default: '+1234567890123456' }",
        ),
      ),
    ).toEqual([
      'm.yaml:5:34 tables.t.fields.a.default: must be a valid phone number (7 to 15 digits), not "12345"',
      'm.yaml:6:34 tables.t.fields.b.default: must be a valid phone number (7 to 15 digits), not "call-me"',
      'm.yaml:7:34 tables.t.fields.c.default: must be a valid phone number (7 to 15 digits), not "+1234567890123456"',
    ]);
    valid(withFields("a: { type: PHONE, default: '+1 (555) 010-9999' }"));
  });
});

describe("renamedFrom", () => {
  it("refuses a field renamed from a field that still exists", () => {
    expect(problems(withFields("title: TEXT", "name: { type: TEXT, renamedFrom: title }"))).toEqual([
      'm.yaml:6:40 tables.t.fields.name.renamedFrom: field "title" still exists: a field can only be renamed from a name that is gone',
    ]);
  });

  it("refuses a table renamed from a table that still exists", () => {
    const text =
      "project: x\ntables:\n  people:\n    fields:\n      a: TEXT\n  users:\n    renamedFrom: people\n    fields:\n      a: TEXT\n";
    expect(problems(text)).toEqual([
      'm.yaml:7:18 tables.users.renamedFrom: table "people" still exists: a table can only be renamed from a name that is gone',
    ]);
  });

  it("refuses a rename from the own name, from a bad name, or two renames from one name", () => {
    const text = [
      "project: x",
      "tables:",
      "  a:",
      "    renamedFrom: old",
      "    fields:",
      "      x: { type: TEXT, renamedFrom: x }",
      "      y: { type: TEXT, renamedFrom: z }",
      "      w: { type: TEXT, renamedFrom: z }",
      "      v: { type: TEXT, renamedFrom: Bad }",
      "  b:",
      "    renamedFrom: old",
      "    fields:",
      "      x: TEXT",
      "",
    ].join("\n");
    expect(problems(text)).toEqual([
      "m.yaml:6:37 tables.a.fields.x.renamedFrom: is the field's own name: leave renamedFrom out, or give the name it had before",
      'm.yaml:8:37 tables.a.fields.w.renamedFrom: duplicate name: fields "y" and "w" are both renamed from "z"',
      'm.yaml:9:37 tables.a.fields.v.renamedFrom: "Bad" is not a valid field name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
      'm.yaml:11:18 tables.b.renamedFrom: duplicate name: tables "a" and "b" are both renamed from "old"',
    ]);
  });

  it("accepts renames from names that are gone", () => {
    valid(
      "project: x\ntables:\n  users:\n    renamedFrom: people\n    fields:\n      name: { type: TEXT, renamedFrom: full_name }\n",
    );
  });
});

describe("query SQL", () => {
  it("refuses SQL that is not a SELECT or WITH", () => {
    expect(problems(withQuery("q:", "    sql: DELETE FROM t"))).toEqual([
      "m.yaml:8:12 queries.q.sql: starts with DELETE: a query must be one read-only SELECT or WITH statement",
    ]);
  });

  it("refuses two statements", () => {
    expect(problems(withQuery("q:", "    sql: SELECT a FROM t; SELECT 1"))).toEqual([
      "m.yaml:8:12 queries.q.sql: holds 2 statements: a query must be one read-only SELECT or WITH statement",
    ]);
  });

  it("accepts one statement with a trailing semicolon and comment", () => {
    valid(withQuery("q:", "    sql: |", "      SELECT a FROM t; -- all of them", ""));
  });

  it("refuses empty SQL", () => {
    expect(problems(withQuery("q:", '    sql: " -- nothing"'))).toEqual([
      "m.yaml:8:12 queries.q.sql: is empty: a query must be one read-only SELECT or WITH statement",
    ]);
  });

  it("refuses a write hidden in a WITH or a SELECT", () => {
    expect(
      problems(
        withQuery(
          "q:",
          "    sql: WITH x AS (SELECT a FROM t) DELETE FROM t WHERE a IN (SELECT a FROM x)",
          "r:",
          "    sql: SELECT a INTO copy FROM t",
        ),
      ),
    ).toEqual([
      "m.yaml:8:12 queries.q.sql: writes: it uses DELETE: a query must be one read-only SELECT or WITH statement",
      "m.yaml:10:12 queries.r.sql: writes: it uses INTO: a query must be one read-only SELECT or WITH statement",
    ]);
  });

  it("refuses a parameter declared but unused, at its name", () => {
    expect(
      problems(withQuery("q:", "    params: { a: TEXT, b: NUMBER }", "    sql: SELECT a FROM t WHERE a = :a")),
    ).toEqual(["m.yaml:8:26 queries.q.params.b: is declared but the SQL does not use :b"]);
  });

  it("refuses a :name used but not declared", () => {
    expect(
      problems(withQuery("q:", "    params: { a: TEXT }", "    sql: SELECT a FROM t WHERE a = :a OR a = :other")),
    ).toEqual(["m.yaml:9:12 queries.q.sql: uses :other, which is not declared in params"]);
  });

  it("does not read casts, strings, quoted names or comments as parameters", () => {
    valid(
      withQuery(
        "q:",
        "    params: { a: TEXT }",
        "    sql: |",
        `      SELECT a::text, ':nope' AS s, "x:nope" FROM t -- :nope`,
        "      WHERE a = :a /* :nope */",
      ),
    );
  });

  it("requires sql", () => {
    expect(problems(withQuery("q:", "    params: {}"))).toEqual(["m.yaml:7:3 queries.q.sql: is required"]);
  });
});

describe("several problems", () => {
  it("reports every problem at once, in the order of the file", () => {
    const text = [
      "project: Blog", // 1
      "versions: [v1, v1]", // 2
      "tables:", // 3
      "  users:", // 4
      "    fields:", // 5
      "      id: NUMBER", // 6
      "      nick: STRNG", // 7
      "  posts:", // 8
      "    fields:", // 9
      "      user_id: { type: NUMBER, references: people }", // 10
      "      published: { type: BOOLEAN, default: maybe }", // 11
      "queries:", // 12
      "  q:", // 13
      "    params: { since: DATETIME }", // 14
      "    sql: SELECT * FROM posts", // 15
      "",
    ].join("\n");
    let error: unknown;
    try {
      validateManifest(parseManifest("blog.yaml", text));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ManifestError);
    expect((error as ManifestError).message).toBe(
      [
        "blog.yaml: 7 problems:",
        '  blog.yaml:1:10 project: "Blog" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most',
        '  blog.yaml:2:16 versions.1: duplicate version "v1"',
        '  blog.yaml:6:7 tables.users.fields.id: "id" is a reserved field name: every table has an implicit id',
        '  blog.yaml:7:13 tables.users.fields.nick: unknown type "STRNG" (expected NUMBER, TEXT, EMAIL, PHONE, PARAGRAPH, BOOLEAN, DATETIME)',
        '  blog.yaml:10:44 tables.posts.fields.user_id.references: refers to a table that does not exist: "people"',
        '  blog.yaml:11:44 tables.posts.fields.published.default: must be true or false for a BOOLEAN field, not string "maybe"',
        "  blog.yaml:14:15 queries.q.params.since: is declared but the SQL does not use :since",
      ].join("\n"),
    );
  });
});

describe("files and syntax", () => {
  it("reports a YAML syntax error as a located user error", () => {
    const error = catchError(() =>
      parseManifest("m.yaml", "project: x\ntables:\n  t:\n    fields:\n     a: TEXT\n      b: TEXT\n"),
    );
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toBe(
      "m.yaml:5:9: invalid YAML: Nested mappings are not allowed in compact mappings",
    );
    expect(() => parseManifest("m.yaml", 'project: "x\n')).toThrow(
      new UserError('m.yaml:2:1: invalid YAML: Missing closing "quote'),
    );
    expect(() => parseManifest("m.yaml", "project: x\n---\nproject: y\n")).toThrow(
      new UserError("m.yaml:2:1: invalid YAML: more than one document (a manifest is a single document)"),
    );
  });

  it("reports a problem of a JSON manifest at its line", () => {
    const text = JSON.stringify(
      { project: "x", tables: { t: { fields: { a: "TEXT", b: { type: "NUMBER", maxLength: 3 } } } } },
      null,
      2,
    );
    expect(problems(text, "tablegen.json")).toEqual([
      "tablegen.json:9:24 tables.t.fields.b.maxLength: applies only to TEXT, EMAIL, PHONE and PARAGRAPH fields, not NUMBER",
    ]);
  });

  it("reads JSON indented with tabs", () => {
    valid('{\n\t"project": "x",\n\t"tables": {"t": {"fields": {"a": "TEXT"}}}\n}\n', "tablegen.json");
  });

  it("reports a JSON syntax error at its line and column", () => {
    const cases: [string, string][] = [
      [
        '{\n  "project": "x"\n  "tables": {}\n}',
        'tablegen.json:3:3: invalid JSON: expected "," or "}", found "tables"',
      ],
      ['{\n  "project": "x",\n}', "tablegen.json:3:1: invalid JSON: trailing comma before }"],
      ['{"a": [1,\n  ]}', "tablegen.json:2:3: invalid JSON: trailing comma before ]"],
      ['{\n  "project": tru\n}', 'tablegen.json:2:14: invalid JSON: expected a value, found "tru"'],
      [
        "{\n  project: 1\n}",
        'tablegen.json:2:3: invalid JSON: expected a double-quoted property name, found "project"',
      ],
      ['{"project": "x"}\n}', 'tablegen.json:2:1: invalid JSON: unexpected "}" after the end of the document'],
      ['{"a": 01}', 'tablegen.json:1:7: invalid JSON: invalid number "01"'],
      ['{"a": "b\n"}', "tablegen.json:1:7: invalid JSON: unterminated string"],
      ["", "tablegen.json:1:1: invalid JSON: expected a value, found end of file"],
      ['{\n  "project": "x" // name\n}', "tablegen.json:2:18: invalid JSON: comments are not allowed in JSON"],
    ];
    for (const [text, message] of cases)
      expect(() => parseManifest("tablegen.json", text)).toThrow(new UserError(message));
  });

  it("refuses duplicate keys in JSON", () => {
    expect(() => parseManifest("tablegen.json", '{\n  "project": "x",\n  "project": "y"\n}')).toThrow(
      new UserError('tablegen.json:3:3: invalid JSON: duplicate key "project"'),
    );
  });

  it("reports a missing file with a hint", async () => {
    await expect(readModel("no/such/tablegen.yaml")).rejects.toThrow(
      new UserError('no/such/tablegen.yaml: manifest not found (run "tablegen init" to create one)'),
    );
  });

  it("reports a directory given as the manifest", async () => {
    await expect(readModel("examples")).rejects.toThrow(new UserError("examples: is a directory, not a manifest file"));
  });

  it("reads a manifest file with a byte order mark", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tablegen-validate-"));
    try {
      const file = join(dir, "tablegen.json");
      await writeFile(file, '\uFEFF{"project": "x", "tables": {"t": {"fields": {"a": "TEXT"}}}}');
      await expect(readModel(file)).resolves.toMatchObject({ project: "x" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}
