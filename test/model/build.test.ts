import { describe, expect, it } from "vitest";
import { modelFromText, readModel } from "../helpers/manifest.ts";
import type { Field, Model, Table } from "../../src/model/types.ts";

const blog = await readModel("examples/blog.yaml");

function table(model: Model, name: string): Table {
  const found = model.tables.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no table ${name}`);
  return found;
}

function field(model: Model, tableName: string, name: string): Field {
  const found = table(model, tableName).fields.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no field ${tableName}.${name}`);
  return found;
}

/** A model from YAML lines (the manifest's `tables:` and what follows). */
function model(...lines: string[]): Model {
  return modelFromText("m.yaml", ["project: x", ...lines, ""].join("\n"));
}

describe("the model of examples/blog.yaml", () => {
  it("carries the project, database, versions and tables in manifest order", () => {
    expect(blog.project).toBe("blog");
    expect(blog.database).toBe("sqlite");
    expect(blog.versions).toEqual(["v1", "v2"]);
    expect(blog.tables.map((t) => [t.name, t.modelName, t.id, t.versions])).toEqual([
      ["users", "Users", "number", ["v1", "v2"]],
      ["posts", "Posts", "number", ["v1", "v2"]],
      ["categories", "Categories", "uuid", ["v1"]],
      ["comments", "Comments", "number", ["v2"]],
    ]);
  });

  it("fills in every field's options", () => {
    expect(table(blog, "users").fields).toEqual([
      {
        name: "name",
        type: "TEXT",
        kind: "text",
        prismaType: "String",
        required: true,
        unique: false,
        index: false,
        maxLength: 255,
      },
      {
        name: "email",
        type: "EMAIL",
        kind: "text",
        prismaType: "String",
        required: true,
        unique: true,
        index: false,
        maxLength: 254,
        description: "Where the user is reached; no two users share one.",
      },
      {
        name: "phone",
        type: "PHONE",
        kind: "text",
        prismaType: "String",
        required: false,
        unique: false,
        index: false,
        maxLength: 32,
      },
      {
        name: "bio",
        type: "PARAGRAPH",
        kind: "text",
        prismaType: "String",
        required: false,
        unique: false,
        index: false,
      },
      {
        name: "active",
        type: "BOOLEAN",
        kind: "boolean",
        prismaType: "Boolean",
        required: false,
        unique: false,
        index: false,
        default: { kind: "value", value: true },
      },
      {
        name: "created_at",
        type: "DATETIME",
        kind: "datetime",
        prismaType: "DateTime",
        required: false,
        unique: false,
        index: false,
        default: { kind: "now" },
      },
    ]);
  });

  it("keeps an explicit maxLength and leaves PARAGRAPH unlimited", () => {
    expect(field(blog, "posts", "title").maxLength).toBe(200);
    expect(field(blog, "categories", "name").maxLength).toBe(80);
    expect(field(blog, "posts", "body")).not.toHaveProperty("maxLength");
    expect(field(blog, "comments", "text")).not.toHaveProperty("maxLength");
  });

  it("makes a plain NUMBER a float, a reference an integer, and a reference to a uuid table a uuid", () => {
    expect(field(blog, "posts", "rating")).toMatchObject({ kind: "float", prismaType: "Float" });
    expect(field(blog, "posts", "user_id")).toMatchObject({ kind: "integer", prismaType: "Int" });
    expect(field(blog, "posts", "category_id")).toMatchObject({ kind: "uuid", prismaType: "String" });
  });

  it("names the relation fields after the column and the back-relations after the referring table", () => {
    expect(field(blog, "posts", "user_id").relation).toEqual({
      table: "users",
      onDelete: "cascade",
      fieldName: "user",
      backFieldName: "posts",
    });
    expect(field(blog, "posts", "category_id").relation).toEqual({
      table: "categories",
      onDelete: "setNull",
      fieldName: "category",
      backFieldName: "posts",
    });
    expect(field(blog, "comments", "post_id").relation).toEqual({
      table: "posts",
      onDelete: "restrict",
      fieldName: "post",
      backFieldName: "comments",
    });
    expect(field(blog, "posts", "title")).not.toHaveProperty("relation");
  });

  it("lists the references to each table", () => {
    expect(table(blog, "users").referencedBy).toEqual([{ table: "posts", field: "user_id", onDelete: "cascade" }]);
    expect(table(blog, "posts").referencedBy).toEqual([{ table: "comments", field: "post_id", onDelete: "restrict" }]);
    expect(table(blog, "categories").referencedBy).toEqual([
      { table: "posts", field: "category_id", onDelete: "setNull" },
    ]);
    expect(table(blog, "comments").referencedBy).toEqual([]);
  });

  it("reads the queries' params, versions and SQL", () => {
    expect(blog.queries.map((query) => [query.name, query.versions, query.params])).toEqual([
      ["category_posts", ["v1", "v2"], [{ name: "category_id", type: "TEXT", kind: "text" }]],
      [
        "recent_posts",
        ["v2"],
        [
          { name: "since", type: "DATETIME", kind: "datetime" },
          { name: "published", type: "BOOLEAN", kind: "boolean" },
        ],
      ],
    ]);
    expect(blog.queries[0]!.sql).toBe(
      [
        "SELECT c.id AS category_id, c.name AS category_name,",
        "       p.id AS post_id, p.title AS description",
        "FROM categories c JOIN posts p ON p.category_id = c.id",
        "WHERE c.id = :category_id",
        "ORDER BY p.id",
      ].join("\n"),
    );
  });
});

describe("descriptions", () => {
  it("keeps the descriptions of tables, fields and queries, trimmed; a blank one is none", () => {
    const m = model(
      "tables:",
      "  a:",
      '    description: "  The a records.  "',
      "    fields:",
      "      name: { type: TEXT, description: The name. }",
      '      blank: { type: TEXT, description: " " }',
      "      plain: TEXT",
      "queries:",
      "  q:",
      "    description: Every name.",
      "    sql: SELECT name FROM a",
    );
    expect(table(m, "a").description).toBe("The a records.");
    expect(table(m, "a").fields.map((f) => f.description)).toEqual(["The name.", undefined, undefined]);
    expect("description" in field(m, "a", "plain")).toBe(false);
    expect(m.queries[0]!.description).toBe("Every name.");
  });
});

describe("indexes", () => {
  it("indexes a field asked to be, every reference, and no unique field; composite indexes are kept in order", () => {
    const m = model(
      "tables:",
      "  a:",
      "    fields:",
      "      name: { type: TEXT, index: true }",
      "      code: { type: TEXT, unique: true, index: true }",
      "      b_id: { type: NUMBER, references: b }",
      "      one_id: { type: NUMBER, references: b, unique: true }",
      "      plain: TEXT",
      "    indexes: [[plain, name], [id, plain]]",
      "  b:",
      "    fields:",
      "      x: TEXT",
    );
    expect(table(m, "a").fields.map((f) => [f.name, f.index])).toEqual([
      ["name", true],
      ["code", false],
      ["b_id", true],
      ["one_id", false],
      ["plain", false],
    ]);
    expect(table(m, "a").indexes).toEqual([
      ["plain", "name"],
      ["id", "plain"],
    ]);
    expect(table(m, "b").indexes).toEqual([]);
  });
});

describe("defaults", () => {
  const minimal = model(
    "tables:",
    "  t:",
    "    fields:",
    "      a: TEXT",
    "queries:",
    "  q:",
    "    sql: SELECT a FROM t",
  );

  it("fills in the database, the versions and the id kind", () => {
    expect(minimal.database).toBe("sqlite");
    expect(minimal.versions).toEqual(["v1"]);
    expect(table(minimal, "t")).toMatchObject({ id: "number", versions: ["v1"], referencedBy: [] });
    expect(minimal.queries[0]).toEqual({ name: "q", versions: ["v1"], params: [], sql: "SELECT a FROM t" });
  });

  it("gives tables and queries all the project's versions by default", () => {
    const m = model(
      "database: postgresql",
      "versions: [v1, v2, v3]",
      "tables:",
      "  t:",
      "    fields:",
      "      a: TEXT",
      "queries:",
      "  q:",
      "    sql: SELECT a FROM t",
    );
    expect(m.database).toBe("postgresql");
    expect(table(m, "t").versions).toEqual(["v1", "v2", "v3"]);
    expect(m.queries[0]!.versions).toEqual(["v1", "v2", "v3"]);
  });

  it("reads shorthand fields as optional, not unique, without a default", () => {
    expect(field(minimal, "t", "a")).toEqual({
      name: "a",
      type: "TEXT",
      kind: "text",
      prismaType: "String",
      required: false,
      unique: false,
      index: false,
      maxLength: 255,
    });
  });

  it("makes integer: true NUMBERs integers and keeps literal defaults", () => {
    const m = model(
      "tables:",
      "  t:",
      "    fields:",
      "      n: { type: NUMBER, integer: true, default: 3 }",
      "      f: { type: NUMBER, default: 2.5 }",
      "      s: { type: TEXT, default: todo }",
      "      d: { type: DATETIME, default: 2024-01-31T12:00:00Z }",
    );
    expect(field(m, "t", "n")).toMatchObject({
      kind: "integer",
      prismaType: "Int",
      default: { kind: "value", value: 3 },
    });
    expect(field(m, "t", "f")).toMatchObject({
      kind: "float",
      prismaType: "Float",
      default: { kind: "value", value: 2.5 },
    });
    expect(field(m, "t", "s").default).toEqual({ kind: "value", value: "todo" });
    expect(field(m, "t", "d").default).toEqual({ kind: "value", value: "2024-01-31T12:00:00Z" });
  });

  it("keeps renamedFrom on tables and fields", () => {
    const m = model(
      "tables:",
      "  users:",
      "    renamedFrom: people",
      "    fields:",
      "      name: { type: TEXT, renamedFrom: full_name }",
    );
    expect(table(m, "users").renamedFrom).toBe("people");
    expect(field(m, "users", "name").renamedFrom).toBe("full_name");
  });

  it("trims the SQL and drops its trailing semicolons", () => {
    const m = model(
      "tables:",
      "  t:",
      "    fields:",
      "      a: TEXT",
      "queries:",
      "  q:",
      "    sql: |",
      "",
      "      SELECT a FROM t;",
      "",
      "  r:",
      '    sql: "SELECT a FROM t ; ;  "',
    );
    expect(m.queries.map((query) => query.sql)).toEqual(["SELECT a FROM t", "SELECT a FROM t"]);
  });

  it("gives query params the kind of their type", () => {
    const m = model(
      "tables:",
      "  t:",
      "    fields:",
      "      a: TEXT",
      "queries:",
      "  q:",
      "    params: { n: NUMBER, e: EMAIL }",
      "    sql: SELECT a FROM t WHERE a = :e OR a = :n",
    );
    expect(m.queries[0]!.params).toEqual([
      { name: "n", type: "NUMBER", kind: "float" },
      { name: "e", type: "EMAIL", kind: "text" },
    ]);
  });

  it("names PascalCase models", () => {
    const m = model(
      "tables:",
      "  blog_post_tags:",
      "    fields:",
      "      a: TEXT",
      "  v2_items:",
      "    fields:",
      "      a: TEXT",
    );
    expect(m.tables.map((t) => t.modelName)).toEqual(["BlogPostTags", "V2Items"]);
  });
});

describe("relations", () => {
  it("names the relations when one table refers to another twice", () => {
    const m = model(
      "tables:",
      "  users:",
      "    fields:",
      "      name: TEXT",
      "  messages:",
      "    fields:",
      "      sender_id: { type: NUMBER, required: true, references: users }",
      "      recipient_id: { type: NUMBER, required: true, references: users, onDelete: cascade }",
    );
    expect(field(m, "messages", "sender_id").relation).toEqual({
      table: "users",
      onDelete: "restrict",
      fieldName: "sender",
      backFieldName: "messages_by_sender_id",
      relationName: "messages_sender_id",
    });
    expect(field(m, "messages", "recipient_id").relation).toEqual({
      table: "users",
      onDelete: "cascade",
      fieldName: "recipient",
      backFieldName: "messages_by_recipient_id",
      relationName: "messages_recipient_id",
    });
    expect(table(m, "users").referencedBy).toEqual([
      { table: "messages", field: "sender_id", onDelete: "restrict" },
      { table: "messages", field: "recipient_id", onDelete: "cascade" },
    ]);
  });

  it("names the relations when two tables refer to each other (Prisma finds them ambiguous otherwise)", () => {
    const m = model(
      "tables:",
      "  users:",
      "    fields:",
      "      favorite_post_id: { type: NUMBER, references: posts, onDelete: setNull }",
      "  posts:",
      "    fields:",
      "      user_id: { type: NUMBER, references: users }",
    );
    expect(field(m, "users", "favorite_post_id").relation).toEqual({
      table: "posts",
      onDelete: "setNull",
      fieldName: "favorite_post",
      backFieldName: "users",
      relationName: "users_favorite_post_id",
    });
    expect(field(m, "posts", "user_id").relation).toEqual({
      table: "users",
      onDelete: "restrict",
      fieldName: "user",
      backFieldName: "posts",
      relationName: "posts_user_id",
    });
  });

  it("leaves a single relation between two tables unnamed", () => {
    expect(field(blog, "posts", "user_id").relation).not.toHaveProperty("relationName");
  });

  it("names a self-reference and lists it on its own table", () => {
    const m = model(
      "tables:",
      "  categories:",
      "    fields:",
      "      name: TEXT",
      "      parent_id: { type: NUMBER, references: categories, onDelete: setNull }",
    );
    expect(field(m, "categories", "parent_id")).toMatchObject({
      kind: "integer",
      relation: {
        table: "categories",
        onDelete: "setNull",
        fieldName: "parent",
        backFieldName: "categories_by_parent_id",
        relationName: "categories_parent_id",
      },
    });
    expect(table(m, "categories").referencedBy).toEqual([
      { table: "categories", field: "parent_id", onDelete: "setNull" },
    ]);
  });

  it("gives a relation field a suffix when its name is taken", () => {
    const m = model(
      "tables:",
      "  users:",
      "    fields:",
      "      posts: { type: NUMBER, integer: true }",
      "  posts:",
      "    fields:",
      "      user: TEXT",
      "      user_id: { type: NUMBER, references: users }",
      "      owner: { type: NUMBER, references: users }",
      "      owner_ref: TEXT",
    );
    expect(field(m, "posts", "user_id").relation).toMatchObject({
      fieldName: "user_2",
      backFieldName: "posts_by_user_id",
    });
    expect(field(m, "posts", "owner").relation).toMatchObject({
      fieldName: "owner_ref_2",
      backFieldName: "posts_by_owner",
    });
  });

  it("gives a back-relation a suffix when the referenced table has a field of that name", () => {
    const m = model(
      "tables:",
      "  users:",
      "    fields:",
      "      posts: { type: NUMBER, integer: true }",
      "  posts:",
      "    fields:",
      "      user_id: { type: NUMBER, references: users }",
    );
    expect(field(m, "posts", "user_id").relation).toMatchObject({ fieldName: "user", backFieldName: "posts_2" });
  });

  it("makes a reference to a uuid table a uuid whatever is declared, and keeps its default", () => {
    const m = model(
      "tables:",
      "  tags:",
      "    id: uuid",
      "    fields:",
      "      name: TEXT",
      "  notes:",
      "    fields:",
      '      tag_id: { type: NUMBER, references: tags, default: "0b0e7c1e-8a43-4d1e-9a8e-2f6c1d1e2a3b" }',
    );
    expect(field(m, "notes", "tag_id")).toMatchObject({
      kind: "uuid",
      prismaType: "String",
      default: { kind: "value", value: "0b0e7c1e-8a43-4d1e-9a8e-2f6c1d1e2a3b" },
    });
    expect(table(m, "tags").id).toBe("uuid");
  });
});
