import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { editedManifestText } from "../../src/manifest/edit.ts";
import { compileManifest } from "../../src/model/index.ts";

// The studio's Save: an edited manifest written back into its file through the YAML document, so
// that what the edit leaves alone stays byte for byte what the user wrote.

const FILE = `# My shop: hand-written notes the studio must keep.
project: shop   # the first URL segment
database: sqlite
versions: [v1]

tables:
  # People who buy.
  customers:
    fields:
      name: { type: TEXT, required: true }   # full name, as printed
      phone: PHONE
      email: {type: EMAIL, unique: true}
  products:
    fields:
      title: TEXT

queries:
  recent:
    params: { name: TEXT }
    sql: |
      SELECT id, name
      FROM customers WHERE name = :name
`;

const edit = (change: (data: any) => void, renames: Parameters<typeof editedManifestText>[3] = []) => {
  const data = parse(FILE);
  change(data);
  return editedManifestText("tablegen.yaml", FILE, data, renames);
};

describe("editedManifestText", () => {
  it("changes nothing when nothing changed", () => {
    expect(edit(() => undefined)).toBe(FILE);
  });

  it("changes one option on its own line; every other line, comment, blank line and spacing stays", () => {
    const text = edit((data) => (data.tables.customers.fields.phone = { type: "PHONE", required: true }));
    expect(text).toBe(FILE.replace("      phone: PHONE\n", "      phone: { type: PHONE, required: true }\n"));
  });

  it("keeps a changed field's trailing comment", () => {
    const text = edit((data) => (data.tables.customers.fields.name.maxLength = 80));
    expect(text).toContain("      name: { type: TEXT, required: true, maxLength: 80 } # full name, as printed\n");
    expect(text.replace(/^ {6}name: .*\n/m, "")).toBe(FILE.replace(/^ {6}name: .*\n/m, ""));
  });

  it("renames a table and a field in place, keeping their comments, order and values", () => {
    const text = edit(
      (data) => {
        const { customers, ...rest } = data.tables;
        const { name, ...fields } = customers.fields;
        data.tables = { clients: { fields: { full_name: { ...name, renamedFrom: "name" }, ...fields } }, ...rest };
      },
      [
        { path: ["tables"], from: "customers", to: "clients" },
        { path: ["tables", "clients", "fields"], from: "name", to: "full_name" },
      ],
    );
    expect(text).toContain("  # People who buy.\n  clients:\n    fields:\n");
    expect(text).toContain(
      "      full_name: { type: TEXT, required: true, renamedFrom: name } # full name, as printed\n",
    );
    expect(Object.keys(parse(text).tables)).toEqual(["clients", "products"]);
    expect(text.indexOf("full_name")).toBeLessThan(text.indexOf("phone"));
  });

  it("adds entries in the examples' style: a field on one line, flow lists, SQL as a block", () => {
    const text = edit((data) => {
      data.tables.orders = {
        fields: { customer_id: { type: "NUMBER", references: "customers" }, note: "PARAGRAPH" },
        indexes: [["customer_id", "note"]],
      };
      data.queries.recent.sql = "SELECT id\nFROM customers WHERE phone = :name\n";
      data.versions = ["v1", "v2"];
    });
    expect(text).toContain(
      "  orders:\n    fields:\n      customer_id: { type: NUMBER, references: customers }\n      note: PARAGRAPH\n    indexes: [[customer_id, note]]\n",
    );
    expect(text).toContain("    sql: |\n      SELECT id\n      FROM customers WHERE phone = :name\n");
    expect(text).toContain("versions: [v1, v2]\n");
    expect(text).toContain(
      "# My shop: hand-written notes the studio must keep.\nproject: shop   # the first URL segment\n",
    );
    expect(() => compileManifest("tablegen.yaml", text)).not.toThrow();
  });

  it("removes entries with their lines, and writes a field back to the shorthand when only its type is left", () => {
    const text = edit((data) => {
      delete data.tables.products;
      data.tables.customers.fields.email = { type: "EMAIL" };
    });
    expect(text).not.toContain("products");
    expect(text).toContain("      email: EMAIL\n");
    expect(text).toContain("  # People who buy.\n");
  });

  it("turns the versions list into the map of their deprecations", () => {
    const text = edit((data) => (data.versions = { v1: { deprecated: "2026-01-31", sunset: "2026-12-31" }, v2: {} }));
    expect(text).toContain("versions:\n  v1: { deprecated: 2026-01-31, sunset: 2026-12-31 }\n  v2: {}\n");
    expect(parse(text).versions.v1.deprecated).toBe("2026-01-31");
  });

  it("writes a JSON manifest as JSON, and a file that is no YAML map anew", () => {
    const data = { project: "shop", tables: { items: { fields: { name: "TEXT" } } } };
    expect(editedManifestText("tablegen.json", '{"project": "old"}', data)).toBe(`${JSON.stringify(data, null, 2)}\n`);
    const fresh = editedManifestText("tablegen.yaml", "- not: a map\n", data);
    expect(parse(fresh)).toEqual(data);
  });
});
