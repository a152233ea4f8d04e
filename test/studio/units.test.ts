import { describe, expect, it } from "vitest";
import { manifestChanges } from "../../src/ai/changes.ts";
import { carryOver, extensionMessages } from "../../src/ai/extend.ts";
import { SYSTEM_PROMPT } from "../../src/ai/prompt.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { compileManifest } from "../../src/model/index.ts";
import { envValues, masked, maskedUrl, withEnvValue } from "../../src/studio/env-file.ts";
import { modelView, relationsView } from "../../src/studio/views.ts";
import { relationHints } from "../../studio-ui/relation-hints.ts";

// The studio's pure pieces: the .env edits of its Settings page, the review of an AI draft, the
// extension of a manifest, what its Data and API pages are told of a model, and what its table
// designer says under a reference's expand names.

describe("the .env of a project", () => {
  const ENV = '# keys\nAPI_SIGNATURE_KEY=old\nDATABASE_URL="file:./data.db"\n';

  it("sets a value in place, every other line kept, and reads it back as the server does", () => {
    const text = withEnvValue(ENV, "API_SIGNATURE_KEY", "new,old");
    expect(text).toBe('# keys\nAPI_SIGNATURE_KEY=new,old\nDATABASE_URL="file:./data.db"\n');
    expect(envValues(text)).toEqual({ API_SIGNATURE_KEY: "new,old", DATABASE_URL: "file:./data.db" });
    const url = withEnvValue(text, "DATABASE_URL", "postgresql://app:s3cret@db:5432/app", true);
    expect(envValues(url).DATABASE_URL).toBe("postgresql://app:s3cret@db:5432/app");
  });

  it("appends a variable it does not hold, on a line of its own", () => {
    expect(withEnvValue("A=1", "B", "2")).toBe("A=1\nB=2\n");
    expect(withEnvValue("", "B", "2")).toBe("B=2\n");
  });

  it("masks a key and a URL's password", () => {
    expect(masked("abcdefghijklmnop")).toBe(`abcd${"•".repeat(12)}`);
    expect(masked("short")).toBe("•".repeat(8));
    expect(maskedUrl("postgresql://app:s3cret@db:5432/app")).toBe("postgresql://app:•••@db:5432/app");
    expect(maskedUrl("file:./data.db")).toBe("file:./data.db");
  });
});

const BEFORE: RawManifest = {
  project: "shop",
  versions: { v1: { deprecated: "2026-01-31" }, v2: {} },
  tables: {
    customers: {
      renamedFrom: "clients",
      fields: {
        full_name: { type: "TEXT", required: true, renamedFrom: "name", names: { v1: "name" } },
        phone: "PHONE",
      },
    },
  },
  queries: { recent: { sql: "SELECT id FROM customers" } },
};

describe("an AI draft against the current manifest", () => {
  it("lists the tables, fields and queries it adds, removes and changes", () => {
    const after: RawManifest = {
      project: "shop",
      versions: ["v1", "v2"],
      tables: {
        customers: { fields: { full_name: { type: "TEXT", required: true, maxLength: 80 }, email: "EMAIL" } },
        orders: { fields: { customer_id: { type: "NUMBER", references: "customers" } } },
      },
    };
    expect(manifestChanges(BEFORE, after)).toEqual([
      { kind: "changed", what: "table customers: renamedFrom" },
      {
        kind: "changed",
        what: 'field customers.full_name: TEXT, required, renamedFrom "name", names {"v1":"name"} → TEXT, required, maxLength 80',
      },
      { kind: "added", what: "field customers.email: EMAIL" },
      { kind: "removed", what: "field customers.phone" },
      { kind: "added", what: "table orders (customer_id)" },
      { kind: "removed", what: "query recent" },
    ]);
    expect(manifestChanges(undefined, after).map(({ what }) => what)).toEqual([
      "table customers (full_name, email)",
      "table orders (customer_id)",
    ]);
  });

  it("keeps, for the entries a draft keeps, what the model's form cannot hold", () => {
    const draft = {
      project: "shop",
      versions: ["v1", "v2"],
      tables: { customers: { fields: { full_name: { type: "TEXT", required: true }, email: "EMAIL" } } },
    };
    expect(carryOver(BEFORE, draft)).toEqual({
      project: "shop",
      versions: { v1: { deprecated: "2026-01-31" }, v2: {} },
      tables: {
        customers: {
          renamedFrom: "clients",
          fields: {
            full_name: { type: "TEXT", required: true, renamedFrom: "name", names: { v1: "name" } },
            email: "EMAIL",
          },
        },
      },
    });
    // Other versions: the list the draft has.
    expect((carryOver(BEFORE, { ...draft, versions: ["v1"] }) as RawManifest).versions).toEqual(["v1"]);
  });

  it("shows the model the current manifest in its own form, then the instructions as a message of their own", () => {
    const messages = extensionMessages(BEFORE, "add orders");
    expect(messages.map(({ role }) => role)).toEqual(["system", "user", "user"]);
    expect(messages[0]!.content).toBe(SYSTEM_PROMPT);
    expect(messages[1]!.content).toContain('"name":"customers"');
    expect(messages[1]!.content).not.toContain("renamedFrom");
    expect(messages[2]!.content).toBe("add orders");
  });
});

/** Users, and posts referring to them four ways: named (as:, reverse:), defaults that collide, a default a field takes. */
const RELATED_TABLES = `  users:
    fields:
      name: TEXT
  posts:
    fields:
      author_id: { type: NUMBER, references: users, as: writer, reverse: authored }
      editor_id: { type: NUMBER, references: users }
      reviewer_id: { type: NUMBER, references: users }
      user: TEXT
      user_id: { type: NUMBER, references: users }
`;

describe("what the Data and API pages are told of a model", () => {
  it("gives each table's fields as each version has them, and each version's routes from its OpenAPI document", () => {
    const { model } = compileManifest(
      "tablegen.yaml",
      `project: shop
versions:
  v1: { deprecated: 2026-01-31, sunset: 2026-12-31 }
  v2: {}
tables:
  customers:
    fields:
      full_name: { type: TEXT, required: true, names: { v1: name } }
      tier: { type: NUMBER, integer: true, default: 1, versions: [v2] }
  orders:
    versions: [v2]
    fields:
      customer_id: { type: NUMBER, required: true, references: customers }
`,
    );
    const view = modelView(model);
    expect(view.versions).toEqual([
      { label: "v1", deprecated: { since: "2026-01-31", sunset: "2026-12-31" } },
      { label: "v2" },
    ]);
    expect(view.tables[0]!.fields.v1!.map(({ name, column }) => [name, column])).toEqual([["name", "full_name"]]);
    expect(view.tables[0]!.fields.v2!.map(({ name, kind, default: value }) => [name, kind, value])).toEqual([
      ["full_name", "text", undefined],
      ["tier", "integer", 1],
    ]);
    expect(view.tables[1]!.fields.v2![0]).toMatchObject({
      name: "customer_id",
      references: "customers",
      required: true,
    });
    expect(
      view.routes
        .v1!.filter(({ tag }) => tag === "customers")
        .map(({ method, path, deprecated }) => [method, path, deprecated]),
    ).toEqual([
      ["GET", "/shop/customers/v1/list", true],
      ["GET", "/shop/customers/v1/show/{id}", true],
      ["POST", "/shop/customers/v1/create", true],
      ["POST", "/shop/customers/v1/update/{id}", true],
      ["DELETE", "/shop/customers/v1/delete/{id}", true],
    ]);
    expect(view.routes.v2!.some(({ path }) => path === "/shop/orders/v2/list")).toBe(true);
    expect(view.routes.v1!.some(({ path }) => path.startsWith("/shop/orders/"))).toBe(false);
    // What expand names in each version: orders (and so their relations) only in v2.
    expect(view.tables.map(({ relations }) => relations)).toEqual([
      { v1: [], v2: [{ name: "orders", kind: "many", table: "orders", field: "customer_id" }] },
      { v2: [{ name: "customer", kind: "one", table: "customers", field: "customer_id" }] },
    ]);
  });

  it("gives the designer each table's relations as expand names them: as:, reverse:, and the defaults left", () => {
    const { model } = compileManifest("tablegen.yaml", `project: blog\ntables:\n${RELATED_TABLES}`);
    // editor_id and reviewer_id would both be users' "posts" (neither is, nor is user_id's), and
    // user_id's "user" is a field of posts.
    expect(relationsView(model)).toEqual({
      users: [{ name: "authored", kind: "many", table: "posts", field: "author_id" }],
      posts: [
        { name: "writer", kind: "one", table: "users", field: "author_id" },
        { name: "editor", kind: "one", table: "users", field: "editor_id" },
        { name: "reviewer", kind: "one", table: "users", field: "reviewer_id" },
      ],
    });
  });
});

describe("what the table designer says under a reference's expand names", () => {
  /** The hints of each named field, with the relations the studio server finds (the generator's). */
  const hints = (text: string, table: string, fields: string[], checked = true) => {
    const compiled = compileManifest("tablegen.yaml", `project: blog\ntables:\n${text}`);
    const relations = checked ? relationsView(compiled.model) : undefined;
    const tables = compiled.manifest.tables as Parameters<typeof relationHints>[0];
    return Object.fromEntries(fields.map((field) => [field, relationHints(tables, table, field, relations)]));
  };

  it("tells what a given name embeds, what a blank one comes to, and why a blank one comes to none", () => {
    const manifest = `${RELATED_TABLES}      owner: { type: NUMBER, references: users }\n`;
    const found = hints(manifest, "posts", ["author_id", "editor_id", "user_id", "owner"]);
    expect(found.author_id).toEqual({
      as: { placeholder: "author", hint: "expand=writer on posts embeds the users record." },
      reverse: { placeholder: "posts", hint: "expand=authored on users embeds the posts records referring to one." },
    });
    expect(found.editor_id).toEqual({
      as: { placeholder: "editor", hint: "Blank: expand=editor, the field's name without _id." },
      reverse: {
        placeholder: undefined,
        hint: "Blank: not expandable, as reviewer_id, user_id and owner also refer to users from posts: name each.",
      },
    });
    expect(found.user_id!.as).toEqual({
      placeholder: undefined,
      hint: 'Blank: not expandable, as "user" is a field of posts.',
    });
    expect(found.owner!.as).toEqual({
      placeholder: undefined,
      hint: "Blank: not expandable, as the name does not end in _id.",
    });
    // While the draft is checked (or has problems), a blank name is told its default by the rule alone.
    expect(hints(manifest, "posts", ["editor_id"], false).editor_id).toEqual({
      as: { placeholder: "editor", hint: "Blank: expand=editor, the field's name without _id." },
      reverse: { placeholder: "posts", hint: "Blank: expand=posts on users, this table's name." },
    });
  });

  it("says which field or relation of the referenced table has the reverse name", () => {
    const referring = `  posts:
    fields:
      user_id: { type: NUMBER, references: users }
`;
    expect(
      hints(`  users:\n    fields:\n      posts: TEXT\n${referring}`, "posts", ["user_id"]).user_id!.reverse,
    ).toEqual({
      placeholder: undefined,
      hint: 'Blank: not expandable, as "posts" is a field of users.',
    });
    const pinned = `  users:\n    fields:\n      pinned_id: { type: NUMBER, references: posts, as: posts }\n`;
    expect(hints(pinned + referring, "posts", ["user_id"]).user_id!.reverse).toEqual({
      placeholder: undefined,
      hint: 'Blank: not expandable, as "posts" names another relation of users.',
    });
  });
});
