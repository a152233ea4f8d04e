import { describe, expect, it } from "vitest";
import type { RawManifest, RawTable } from "../../src/manifest/schema.ts";
import { planMigration as plan, type MigrationPlan } from "../../src/migrate/plan.ts";
import { buildModel } from "../../src/model/build.ts";

/** The plan from a previous manifest to the next one, with the next one's model built as the CLI builds it. */
const planMigration = (previous: RawManifest | undefined, next: RawManifest): MigrationPlan =>
  plan(previous, { manifest: next, model: buildModel(next) });
import { describeRisk } from "../../src/migrate/risks.ts";
import { schemaUpdates } from "../../src/migrate/schema-updates.ts";

/** A manifest of project "shop" with the given tables. */
function shop(tables: Record<string, RawTable>): RawManifest {
  return { project: "shop", tables };
}

/** A shop with one table, customers, holding these fields. */
function customers(fields: RawTable["fields"]): RawManifest {
  return shop({ customers: { fields } });
}

const base = shop({
  customers: { fields: { name: { type: "TEXT", required: true }, phone: "PHONE" } },
  orders: {
    fields: {
      customer_id: { type: "NUMBER", references: "customers", onDelete: "cascade" },
      total: { type: "NUMBER", required: true },
    },
  },
});

/** A plan that is only what `changes` and `risks` say: no renames, no problems. */
function expectPlain(plan: MigrationPlan, changes: string[], risks: MigrationPlan["risks"]): void {
  expect(plan.renames).toEqual([]);
  expect(plan.problems).toEqual([]);
  expect(plan.changes).toEqual(changes);
  expect(plan.risks).toEqual(risks);
}

describe("planMigration without a previous manifest", () => {
  it("adds every table, in manifest order, with no risk", () => {
    const plan = planMigration(undefined, base);
    expect(plan).toEqual({
      renamedPrevious: buildModel({ ...base, tables: {} }),
      renames: [],
      risks: [],
      problems: [],
      changes: ["customers: table added", "orders: table added"],
      fills: [],
    });
  });

  it("asks no default of required fields and ignores renamedFrom: there are no rows yet", () => {
    const plan = planMigration(
      undefined,
      shop({
        clients: {
          renamedFrom: "customers",
          fields: { vip: { type: "BOOLEAN", required: true }, phone: { type: "PHONE", renamedFrom: "tel" } },
        },
      }),
    );
    expectPlain(plan, ["clients: table added"], []);
  });
});

describe("planMigration with identical manifests", () => {
  it("finds no change and leaves the previous manifest untouched", () => {
    const previous = structuredClone(base);
    const plan = planMigration(previous, structuredClone(base));
    expectPlain(plan, [], []);
    expect(plan.renamedPrevious).toEqual(buildModel(base));
    expect(previous).toEqual(base);
  });

  it("finds no change when only the spelling differs (a type name or the default maxLength written out)", () => {
    const plan = planMigration(
      customers({ name: "TEXT", phone: "PHONE" }),
      customers({ name: { type: "TEXT", maxLength: 255 }, phone: { type: "PHONE", required: false } }),
    );
    expectPlain(plan, [], []);
  });
});

describe("planMigration's risks, one per kind", () => {
  it("table-removed", () => {
    const plan = planMigration(base, shop({ customers: base.tables.customers! }));
    expectPlain(plan, ["orders: table removed"], [{ kind: "table-removed", table: "orders" }]);
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("orders: table removed");
    expect(describeRisk(risk!, 1)).toBe("orders: table removed, 1 row");
    expect(describeRisk(risk!, 3)).toBe("orders: table removed, 3 rows");
    expect(describeRisk(risk!, 0)).toBe("orders: table removed, 0 rows");
  });

  it("field-removed", () => {
    const plan = planMigration(customers({ name: "TEXT", phone: "PHONE" }), customers({ name: "TEXT" }));
    expectPlain(
      plan,
      ["customers.phone: field removed"],
      [{ kind: "field-removed", table: "customers", field: "phone" }],
    );
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.phone: field removed");
    expect(describeRisk(risk!, 1)).toBe("customers.phone: field removed, 1 row holds a value");
    expect(describeRisk(risk!, 3)).toBe("customers.phone: field removed, 3 rows hold a value");
  });

  it("type-changed", () => {
    const plan = planMigration(customers({ score: "NUMBER" }), customers({ score: "BOOLEAN" }));
    expectPlain(
      plan,
      ["customers.score: type changed"],
      [{ kind: "type-changed", table: "customers", field: "score", from: "NUMBER", to: "BOOLEAN" }],
    );
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.score: type changes from NUMBER to BOOLEAN");
    expect(describeRisk(risk!, 1)).toBe("customers.score: type changes from NUMBER to BOOLEAN, 1 row holds a value");
    expect(describeRisk(risk!, 2)).toBe("customers.score: type changes from NUMBER to BOOLEAN, 2 rows hold a value");
  });

  it("narrowed, from a maxLength", () => {
    const plan = planMigration(
      customers({ name: { type: "TEXT", maxLength: 100 } }),
      customers({ name: { type: "TEXT", maxLength: 50 } }),
    );
    expectPlain(
      plan,
      ["customers.name: maxLength narrowed"],
      [{ kind: "narrowed", table: "customers", field: "name", from: 100, to: 50 }],
    );
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.name: maxLength narrows from 100 to 50");
    expect(describeRisk(risk!, 1)).toBe("customers.name: maxLength narrows from 100 to 50, 1 row is longer");
    expect(describeRisk(risk!, 4)).toBe("customers.name: maxLength narrows from 100 to 50, 4 rows are longer");
  });

  it("narrowed, from a type's default maxLength", () => {
    const plan = planMigration(customers({ name: "TEXT" }), customers({ name: { type: "TEXT", maxLength: 80 } }));
    expectPlain(
      plan,
      ["customers.name: maxLength narrowed"],
      [{ kind: "narrowed", table: "customers", field: "name", from: 255, to: 80 }],
    );
    expect(describeRisk(plan.risks[0]!, 2)).toBe("customers.name: maxLength narrows from 255 to 80, 2 rows are longer");
  });

  it("narrowed, from an unlimited PARAGRAPH to a TEXT (no type change: both are text)", () => {
    const plan = planMigration(customers({ bio: "PARAGRAPH" }), customers({ bio: "TEXT" }));
    expectPlain(
      plan,
      ["customers.bio: maxLength narrowed"],
      [{ kind: "narrowed", table: "customers", field: "bio", from: undefined, to: 255 }],
    );
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.bio: maxLength narrows from unlimited to 255");
    expect(describeRisk(risk!, 1)).toBe("customers.bio: maxLength narrows from unlimited to 255, 1 row is longer");
  });

  it("made-unique", () => {
    const plan = planMigration(customers({ email: "EMAIL" }), customers({ email: { type: "EMAIL", unique: true } }));
    expectPlain(plan, ["customers.email: made unique"], [{ kind: "made-unique", table: "customers", field: "email" }]);
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.email: becomes unique");
    expect(describeRisk(risk!, 1)).toBe("customers.email: becomes unique, 1 row shares its value");
    expect(describeRisk(risk!, 2)).toBe("customers.email: becomes unique, 2 rows share a value");
  });

  it("made-required, without a default", () => {
    const plan = planMigration(customers({ phone: "PHONE" }), customers({ phone: { type: "PHONE", required: true } }));
    expectPlain(
      plan,
      ["customers.phone: made required"],
      [{ kind: "made-required", table: "customers", field: "phone" }],
    );
    const [risk] = plan.risks;
    expect(describeRisk(risk!)).toBe("customers.phone: becomes required without a default");
    expect(describeRisk(risk!, 1)).toBe("customers.phone: becomes required without a default, 1 row holds no value");
    expect(describeRisk(risk!, 5)).toBe("customers.phone: becomes required without a default, 5 rows hold no value");
  });

  it("lists several risks of one field in order: type, maxLength, unique, required", () => {
    const plan = planMigration(
      customers({ code: "PARAGRAPH" }),
      customers({ code: { type: "TEXT", maxLength: 10, unique: true, required: true } }),
    );
    expect(plan.changes).toEqual([
      "customers.code: maxLength narrowed",
      "customers.code: made unique",
      "customers.code: made required",
    ]);
    expect(plan.risks.map((risk) => risk.kind)).toEqual(["narrowed", "made-unique", "made-required"]);
  });
});

describe("planMigration's changes that keep every row", () => {
  it("a wider maxLength is no risk", () => {
    const plan = planMigration(
      customers({ name: { type: "TEXT", maxLength: 100 } }),
      customers({ name: { type: "TEXT", maxLength: 200 } }),
    );
    expectPlain(plan, ["customers.name: maxLength widened"], []);
  });

  it("TEXT to an unlimited PARAGRAPH is no risk", () => {
    const plan = planMigration(customers({ name: "TEXT" }), customers({ name: "PARAGRAPH" }));
    expectPlain(plan, ["customers.name: maxLength widened"], []);
  });

  it("dropping unique or required is no risk", () => {
    const plan = planMigration(
      customers({ email: { type: "EMAIL", unique: true, required: true } }),
      customers({ email: "EMAIL" }),
    );
    expectPlain(plan, [], []);
  });

  it("optional to required with a default is no risk; without one it is", () => {
    const withDefault = planMigration(
      customers({ country: "TEXT" }),
      customers({ country: { type: "TEXT", required: true, default: "FR" } }),
    );
    expectPlain(
      withDefault,
      ["customers.country: made required, nulls set to the default", "customers.country: default added"],
      [],
    );
    expect(withDefault.fills.map(({ table, field }) => `${table}.${field.name}`)).toEqual(["customers.country"]);
    const without = planMigration(
      customers({ country: "TEXT" }),
      customers({ country: { type: "TEXT", required: true } }),
    );
    expectPlain(
      without,
      ["customers.country: made required"],
      [{ kind: "made-required", table: "customers", field: "country" }],
    );
    expect(without.fills).toEqual([]);
  });

  it("a changed default is a change without risk", () => {
    expectPlain(
      planMigration(
        customers({ tier: { type: "TEXT", default: "basic" }, seen: "DATETIME" }),
        customers({ tier: { type: "TEXT", default: "gold" }, seen: { type: "DATETIME", default: "now" } }),
      ),
      ["customers.tier: default changed", "customers.seen: default added"],
      [],
    );
  });

  it("a new optional field and a new required field with a default are fine", () => {
    const plan = planMigration(
      customers({ name: "TEXT" }),
      customers({
        name: "TEXT",
        nickname: "TEXT",
        active: { type: "BOOLEAN", required: true, default: true },
        joined: { type: "DATETIME", required: true, default: "now" },
      }),
    );
    expectPlain(
      plan,
      ["customers.nickname: field added", "customers.active: field added", "customers.joined: field added"],
      [],
    );
  });

  it("a new table is added, even with required fields without a default", () => {
    const plan = planMigration(
      customers({ name: "TEXT" }),
      shop({ customers: { fields: { name: "TEXT" } }, tags: { fields: { label: { type: "TEXT", required: true } } } }),
    );
    expectPlain(plan, ["tags: table added"], []);
  });
});

describe("planMigration's index changes", () => {
  it("lists indexes added and removed, a field's and composite ones, as changes without risk", () => {
    const plan = planMigration(customers({ name: "TEXT", city: { type: "TEXT", index: true } }), {
      ...customers({ name: { type: "TEXT", index: true }, city: "TEXT" }),
      tables: {
        customers: { fields: { name: { type: "TEXT", index: true }, city: "TEXT" }, indexes: [["city", "name"]] },
      },
    });
    expectPlain(
      plan,
      ["customers.name: index added", "customers.city: index removed", "customers: index on city, name added"],
      [],
    );
  });
});

describe("planMigration's problems", () => {
  it("refuses a new required field without a default on an existing table", () => {
    const plan = planMigration(
      customers({ name: "TEXT" }),
      customers({ name: "TEXT", vip: { type: "BOOLEAN", required: true } }),
    );
    expect(plan.problems).toEqual([
      "tables.customers.fields.vip: a new required field needs a default, so that the table's existing rows get a value",
    ]);
    expect(plan.changes).toEqual(["customers.vip: field added"]);
    expect(plan.risks).toEqual([]);
  });

  it("refuses each such field, and a renamed field is not new", () => {
    const plan = planMigration(
      customers({ name: "TEXT" }),
      customers({
        full_name: { type: "TEXT", required: true, default: "", renamedFrom: "name" },
        a: { type: "NUMBER", required: true },
        b: { type: "EMAIL", required: true },
      }),
    );
    expect(plan.problems).toEqual([
      "tables.customers.fields.a: a new required field needs a default, so that the table's existing rows get a value",
      "tables.customers.fields.b: a new required field needs a default, so that the table's existing rows get a value",
    ]);
  });
});

describe("planMigration's renames", () => {
  it("a field rename keeps the field's place and gives no risk", () => {
    const plan = planMigration(
      customers({ name: "TEXT", phone: "PHONE", email: "EMAIL" }),
      customers({ name: "TEXT", mobile: { type: "PHONE", renamedFrom: "phone" }, email: "EMAIL" }),
    );
    expect(plan).toEqual({
      renamedPrevious: buildModel(customers({ name: "TEXT", mobile: "PHONE", email: "EMAIL" })),
      renames: [{ kind: "field", table: "customers", from: "phone", to: "mobile" }],
      risks: [],
      problems: [],
      changes: ["customers.phone: field renamed to mobile"],
      fills: [],
    });
    expect(plan.renamedPrevious.tables[0]!.fields.map((field) => field.name)).toEqual(["name", "mobile", "email"]);
  });

  it("a table rename also renames the references other tables make to it", () => {
    const next = shop({
      clients: { renamedFrom: "customers", fields: { name: { type: "TEXT", required: true }, phone: "PHONE" } },
      orders: {
        fields: {
          customer_id: { type: "NUMBER", references: "clients", onDelete: "cascade" },
          total: { type: "NUMBER", required: true },
        },
      },
    });
    const plan = planMigration(base, next);
    expect(plan).toEqual({
      renamedPrevious: buildModel(
        shop({
          clients: { fields: { name: { type: "TEXT", required: true }, phone: "PHONE" } },
          orders: {
            fields: {
              customer_id: { type: "NUMBER", references: "clients", onDelete: "cascade" },
              total: { type: "NUMBER", required: true },
            },
          },
        }),
      ),
      renames: [{ kind: "table", from: "customers", to: "clients" }],
      risks: [],
      problems: [],
      changes: ["customers: table renamed to clients"],
      fills: [],
    });
    expect(plan.renamedPrevious.tables.map((table) => table.name)).toEqual(["clients", "orders"]);
    expect(base.tables.orders!.fields.customer_id).toEqual({
      type: "NUMBER",
      references: "customers",
      onDelete: "cascade",
    });
  });

  it("a self-reference follows its table's rename", () => {
    const plan = planMigration(
      shop({ people: { fields: { name: "TEXT", parent_id: { type: "NUMBER", references: "people" } } } }),
      shop({
        persons: {
          renamedFrom: "people",
          fields: { name: "TEXT", parent_id: { type: "NUMBER", references: "persons" } },
        },
      }),
    );
    expect(plan.renamedPrevious).toEqual(
      buildModel(shop({ persons: { fields: { name: "TEXT", parent_id: { type: "NUMBER", references: "persons" } } } })),
    );
    expect(plan.renames).toEqual([{ kind: "table", from: "people", to: "persons" }]);
    expect(plan.changes).toEqual(["people: table renamed to persons"]);
    expect(plan.risks).toEqual([]);
  });

  it("renames tables first, then fields (inside a renamed table, under its new name)", () => {
    const next = shop({
      clients: {
        renamedFrom: "customers",
        fields: { full_name: { type: "TEXT", required: true, renamedFrom: "name" }, phone: "PHONE" },
      },
      orders: {
        fields: {
          client_id: { type: "NUMBER", references: "clients", onDelete: "cascade", renamedFrom: "customer_id" },
          amount: { type: "NUMBER", required: true, renamedFrom: "total" },
        },
      },
    });
    const plan = planMigration(base, next);
    expect(plan.renames).toEqual([
      { kind: "table", from: "customers", to: "clients" },
      { kind: "field", table: "clients", from: "name", to: "full_name" },
      { kind: "field", table: "orders", from: "customer_id", to: "client_id" },
      { kind: "field", table: "orders", from: "total", to: "amount" },
    ]);
    expect(plan.renamedPrevious).toEqual(
      buildModel(
        shop({
          clients: { fields: { full_name: { type: "TEXT", required: true }, phone: "PHONE" } },
          orders: {
            fields: {
              client_id: { type: "NUMBER", references: "clients", onDelete: "cascade" },
              amount: { type: "NUMBER", required: true },
            },
          },
        }),
      ),
    );
    expect(plan.changes).toEqual([
      "customers: table renamed to clients",
      "clients.name: field renamed to full_name",
      "orders.customer_id: field renamed to client_id",
      "orders.total: field renamed to amount",
    ]);
    expect(plan.risks).toEqual([]);
    expect(plan.problems).toEqual([]);
  });

  it("a renamed field that also changes is compared under its new name", () => {
    const plan = planMigration(
      customers({ email: "EMAIL" }),
      customers({ mail: { type: "EMAIL", unique: true, renamedFrom: "email" } }),
    );
    expect(plan.renames).toEqual([{ kind: "field", table: "customers", from: "email", to: "mail" }]);
    expect(plan.changes).toEqual(["customers.email: field renamed to mail", "customers.mail: made unique"]);
    expect(plan.risks).toEqual([{ kind: "made-unique", table: "customers", field: "mail" }]);
  });

  it("renamedFrom left in the manifest after the rename happened is a no-op", () => {
    const renamed = shop({
      clients: {
        renamedFrom: "customers",
        fields: { full_name: { type: "TEXT", required: true, renamedFrom: "name" }, phone: "PHONE" },
      },
    });
    // The snapshot of the last migration already holds the new names (and the same renamedFrom)...
    const again = planMigration(structuredClone(renamed), renamed);
    expectPlain(again, [], []);
    expect(again.renamedPrevious).toEqual(buildModel(renamed));
    // ...or the new names without renamedFrom.
    const without = planMigration(
      shop({ clients: { fields: { full_name: { type: "TEXT", required: true }, phone: "PHONE" } } }),
      renamed,
    );
    expectPlain(without, [], []);
  });

  it("renamedFrom naming something that never existed adds the table or field", () => {
    const plan = planMigration(
      customers({ name: "TEXT" }),
      shop({
        customers: { fields: { name: "TEXT", nick: { type: "TEXT", renamedFrom: "alias" } } },
        tags: { renamedFrom: "labels", fields: { x: "TEXT" } },
      }),
    );
    expectPlain(plan, ["customers.nick: field added", "tags: table added"], []);
  });
});

describe("planMigration's type changes", () => {
  it("NUMBER to TEXT is a type change only (a number has no maxLength to narrow)", () => {
    const plan = planMigration(customers({ score: "NUMBER" }), customers({ score: "TEXT" }));
    expectPlain(
      plan,
      ["customers.score: type changed"],
      [{ kind: "type-changed", table: "customers", field: "score", from: "NUMBER", to: "TEXT" }],
    );
    expect(describeRisk(plan.risks[0]!, 3)).toBe(
      "customers.score: type changes from NUMBER to TEXT, 3 rows hold a value",
    );
  });

  it("TEXT to NUMBER is a type change only", () => {
    const plan = planMigration(customers({ code: { type: "TEXT", maxLength: 20 } }), customers({ code: "NUMBER" }));
    expectPlain(
      plan,
      ["customers.code: type changed"],
      [{ kind: "type-changed", table: "customers", field: "code", from: "TEXT", to: "NUMBER" }],
    );
  });

  it("TEXT to EMAIL or PHONE is no type change, but can narrow", () => {
    const plan = planMigration(customers({ a: "TEXT", b: "TEXT" }), customers({ a: "EMAIL", b: "PHONE" }));
    expectPlain(
      plan,
      ["customers.a: maxLength narrowed", "customers.b: maxLength narrowed"],
      [
        { kind: "narrowed", table: "customers", field: "a", from: 255, to: 254 },
        { kind: "narrowed", table: "customers", field: "b", from: 255, to: 32 },
      ],
    );
  });

  it("integer to float and float to integer", () => {
    const toFloat = planMigration(customers({ n: { type: "NUMBER", integer: true } }), customers({ n: "NUMBER" }));
    expectPlain(
      toFloat,
      ["customers.n: type changed"],
      [{ kind: "type-changed", table: "customers", field: "n", from: "NUMBER (integer)", to: "NUMBER" }],
    );
    const toInteger = planMigration(customers({ n: "NUMBER" }), customers({ n: { type: "NUMBER", integer: true } }));
    expectPlain(
      toInteger,
      ["customers.n: type changed"],
      [{ kind: "type-changed", table: "customers", field: "n", from: "NUMBER", to: "NUMBER (integer)" }],
    );
    expect(describeRisk(toInteger.risks[0]!, 1)).toBe(
      "customers.n: type changes from NUMBER to NUMBER (integer), 1 row holds a value",
    );
  });

  const owners = (references: string) =>
    shop({
      people: { fields: { name: "TEXT" } },
      groups: { id: "uuid", fields: { name: "TEXT" } },
      teams: { fields: { name: "TEXT" } },
      things: { fields: { owner_id: { type: "NUMBER", references } } },
    });

  it("a reference moved from a number-id table to a uuid-id table changes type", () => {
    const plan = planMigration(owners("people"), owners("groups"));
    expectPlain(
      plan,
      ["things.owner_id: type changed", "things.owner_id: reference changed"],
      [{ kind: "type-changed", table: "things", field: "owner_id", from: "NUMBER (integer)", to: "NUMBER (uuid)" }],
    );
    const back = planMigration(owners("groups"), owners("people"));
    expect(back.risks).toEqual([
      { kind: "type-changed", table: "things", field: "owner_id", from: "NUMBER (uuid)", to: "NUMBER (integer)" },
    ]);
  });

  it("a reference moved between two number-id tables changes no type", () => {
    expectPlain(planMigration(owners("people"), owners("teams")), ["things.owner_id: reference changed"], []);
  });

  it("a plain float NUMBER that becomes a reference changes type (references hold integers)", () => {
    const plan = planMigration(
      shop({ people: { fields: { name: "TEXT" } }, things: { fields: { owner_id: "NUMBER" } } }),
      shop({
        people: { fields: { name: "TEXT" } },
        things: { fields: { owner_id: { type: "NUMBER", references: "people" } } },
      }),
    );
    expectPlain(
      plan,
      ["things.owner_id: type changed", "things.owner_id: reference changed", "things.owner_id: index added"],
      [{ kind: "type-changed", table: "things", field: "owner_id", from: "NUMBER", to: "NUMBER (integer)" }],
    );
  });

  it("an id kind number to uuid changes the id and every reference to it", () => {
    const before = shop({
      people: { fields: { name: "TEXT" } },
      things: { fields: { owner_id: { type: "NUMBER", references: "people" } } },
    });
    const after = shop({
      people: { id: "uuid", fields: { name: "TEXT" } },
      things: { fields: { owner_id: { type: "NUMBER", references: "people" } } },
    });
    const plan = planMigration(before, after);
    expectPlain(
      plan,
      ["people.id: type changed", "things.owner_id: type changed"],
      [
        { kind: "type-changed", table: "people", field: "id", from: "number", to: "uuid" },
        { kind: "type-changed", table: "things", field: "owner_id", from: "NUMBER (integer)", to: "NUMBER (uuid)" },
      ],
    );
    expect(describeRisk(plan.risks[0]!)).toBe("people.id: type changes from number to uuid");
    expect(describeRisk(plan.risks[0]!, 2)).toBe("people.id: type changes from number to uuid, 2 rows hold a value");
    expect(describeRisk(plan.risks[1]!, 1)).toBe(
      "things.owner_id: type changes from NUMBER (integer) to NUMBER (uuid), 1 row holds a value",
    );
  });
});

describe("planMigration of bigint ids (issue 30)", () => {
  const people = (id: "number" | "bigint"): RawManifest => ({
    ...shop({
      people: { ...(id === "bigint" && { id }), fields: { name: "TEXT" } },
      things: { fields: { owner_id: { type: "NUMBER", references: "people" } } },
    }),
    database: "postgresql",
  });

  it("adds a bigint table with no risk", () => {
    const before = people("number");
    const after: RawManifest = {
      ...before,
      tables: { ...before.tables, events: { id: "bigint", fields: { at: "DATETIME" } } },
    };
    expectPlain(planMigration(before, after), ["events: table added"], []);
  });

  it("an id kind number to bigint changes the id and every reference to it, as a risk to accept", () => {
    const plan = planMigration(people("number"), people("bigint"));
    expectPlain(
      plan,
      ["people.id: type changed", "things.owner_id: type changed"],
      [
        { kind: "type-changed", table: "people", field: "id", from: "number", to: "bigint" },
        { kind: "type-changed", table: "things", field: "owner_id", from: "NUMBER (integer)", to: "NUMBER (bigint)" },
      ],
    );
    expect(describeRisk(plan.risks[0]!, 2)).toBe("people.id: type changes from number to bigint, 2 rows hold a value");
  });
});

describe("schemaUpdates: what this tablegen writes differently for the manifest last applied", () => {
  const schema = (joined: string, index: string) => `model Customer {
  id     Int       @id @default(autoincrement())
  name   String    @unique
  joined DateTime? ${joined}
  orders Order[]

  ${index}
  @@map("customers")
}
`;
  it("names each column whose default, type or constraint is written otherwise, and rewritten indexes", () => {
    const now = `@default(dbgenerated("(strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'))"))`;
    expect(schemaUpdates(schema("@default(now())", ""), schema(now, ""))).toEqual([
      "customers.joined: default rewritten as this tablegen writes it",
    ]);
    expect(schemaUpdates(schema(now, ""), schema(now, "@@index([joined])"))).toEqual([
      "customers: indexes rewritten as this tablegen writes them",
    ]);
    expect(schemaUpdates(schema(now, ""), schema(now, ""))).toEqual([]);
  });
});
