import { join } from "node:path";
import { describe, it } from "vitest";
import { failure } from "./helpers/http.ts";
import { typeCheck } from "./helpers/typecheck.ts";
import { postgresUrl, project, serve, tablegen, type Envelope } from "./migrate/scenario.ts";

// Issue 15: a published version keeps its contract while the next one changes. v1 is published,
// then the manifest evolves: the name field is renamed for the versions after v1 (stored once, under
// its new name), v2 adds a required field with a default, hides a field v1 has and changes a default
// v1 keeps, and a v3 arrives; v1 is deprecated. v1's answers for the same data stay byte for byte what they were.

const PUBLISHED = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true }
      email: { type: EMAIL, required: true, unique: true }
      legacy_code: TEXT
      status: { type: TEXT, default: new }
`;

const EVOLVED = `project: shop
versions:
  v1: { deprecated: 2026-11-01, sunset: 2027-06-30 }
  v2: {}
  v3: {}
tables:
  customers:
    fields:
      full_name: { type: TEXT, required: true, renamedFrom: name, names: { v1: name } }
      email: { type: EMAIL, required: true, unique: true }
      legacy_code: { type: TEXT, versions: [v1] }
      tier: { type: NUMBER, integer: true, required: true, default: 1, versions: [v2, v3] }
      status: { type: TEXT, default: active, inVersions: { v1: { default: new } } }
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers, names: { v1: buyer_id }, as: buyer }
      note: { type: TEXT, versions: [v2, v3] }
`;

const DEPRECATION = "@1793491200"; // 2026-11-01T00:00:00Z
const SUNSET = "Wed, 30 Jun 2027 00:00:00 GMT";

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`versions on ${database}`, () => {
    it("v1 answers the same bytes after v2 changes the table; v2 has the new shape", async (context) => {
      const { expect } = context;
      const { dir, db, write } = await project(database, PUBLISHED);
      expect((await tablegen(["generate"], dir)).exitCode).toBe(0);
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      let server = await serve(dir, db, context);
      const ada = await server.api.post("/customers/v1/create", {
        name: "Ada",
        email: "ada@example.com",
        legacy_code: "A1",
      });
      expect(ada.status, ada.text).toBe(201);
      const bob = await server.api.post("/customers/v1/create", { name: "Bob", email: "bob@example.com" });
      expect(bob.status, bob.text).toBe(201);
      const v1Reads = [
        "/customers/v1/list",
        "/customers/v1/show/1",
        "/customers/v1/list?name=Bob",
        "/customers/v1/list?sort=-name",
      ];
      const before = await Promise.all(v1Reads.map(async (path) => (await server.api.get(path)).text));
      await server.stop();

      await write(EVOLVED);
      const generated = await tablegen(["generate"], dir);
      expect(generated.exitCode, generated.stderr).toBe(0);
      const migrated = await tablegen(["migrate"], dir);
      expect(migrated.exitCode, migrated.stderr).toBe(0);
      // Everything but the Prisma Client, which `npm install` generates.
      const errors = typeCheck(join(dir, "server", "tsconfig.json")).filter(
        (line) => !line.includes("generated/prisma"),
      );
      expect(errors).toEqual([]);
      server = await serve(dir, db, context);
      const { api } = server;

      // v1: the same bytes for the same data, reads and list queries in its own names.
      const after = await Promise.all(v1Reads.map(async (path) => (await api.get(path)).text));
      expect(after).toEqual(before);
      expect(before[1]).toBe(
        '{"success":true,"message":"Data found.","data":{"id":1,"name":"Ada","email":"ada@example.com","legacy_code":"A1","status":"new"}}',
      );

      // v2: the field under its new name, the new field with its default for the old records, no legacy_code.
      const shown = await api.get("/customers/v2/show/1");
      expect(shown.text).toBe(
        '{"success":true,"message":"Data found.","data":{"id":1,"full_name":"Ada","email":"ada@example.com","tier":1,"status":"new"}}',
      );
      expect((await api.get("/customers/v2/list?full_name=Bob")).body).toMatchObject({
        data: [{ id: 2, full_name: "Bob" }],
      });
      expect((await api.get("/customers/v2/list?sort=-full_name&limit=1")).body).toMatchObject({ data: [{ id: 2 }] });
      const oldName = await api.get("/customers/v2/list?name=Bob&legacy_code=A1");
      expect(oldName.status).toBe(400);
      expect(oldName.body).toEqual(failure("Invalid request: unknown parameter name; unknown parameter legacy_code"));

      // A v1 create gives neither tier nor status: tier takes its default, status v1's own.
      const v1Create = await api.post("/customers/v1/create", { name: "Cy", email: "cy@example.com" });
      expect(v1Create.status, v1Create.text).toBe(201);
      expect(v1Create.text).toBe(
        '{"success":true,"message":"Record created successfully.","data":{"id":3,"name":"Cy","email":"cy@example.com","legacy_code":null,"status":"new"}}',
      );
      expect((await api.get("/customers/v2/show/3")).body).toMatchObject({
        data: { full_name: "Cy", tier: 1, status: "new" },
      });
      const v2Create = await api.post("/customers/v2/create", { full_name: "Di", email: "di@example.com", tier: 3 });
      expect(v2Create.status, v2Create.text).toBe(201);
      expect((await api.get("/customers/v1/show/4")).text).toBe(
        '{"success":true,"message":"Data found.","data":{"id":4,"name":"Di","email":"di@example.com","legacy_code":null,"status":"active"}}',
      );
      const v2Update = await api.post("/customers/v2/update/4", { full_name: "Dee" });
      expect(v2Update.body).toMatchObject({ data: { id: 4, full_name: "Dee", tier: 3 } });
      const v1Update = await api.post("/customers/v1/update/4", { name: "Dot", legacy_code: "D4" });
      expect(v1Update.text).toBe(
        '{"success":true,"message":"Record updated successfully.","data":{"id":4,"name":"Dot","email":"di@example.com","legacy_code":"D4","status":"active"}}',
      );

      // Each version refuses the other's names, with the validator's message.
      const v2Old = await api.post("/customers/v2/create", { name: "Ed", email: "ed@example.com" });
      expect(v2Old.status).toBe(400);
      expect(v2Old.body).toEqual(failure("Invalid request: full_name is required; unknown field name"));
      const v1New = await api.post("/customers/v1/create", { name: "Ed", email: "ed@example.com", tier: 2 });
      expect(v1New.status).toBe(400);
      expect(v1New.body).toEqual(failure("Invalid request: unknown field tier"));

      // A whole table longer than a batch is streamed in each version's names too.
      await db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) " +
          "INSERT INTO customers (full_name, email, tier, status) SELECT 'P' || i, 'p' || i || '@example.com', 2, 'bulk' FROM n",
      );
      const [v1All, v2All] = await Promise.all([api.get("/customers/v1/list"), api.get("/customers/v2/list")]);
      const v1Records = (v1All.body as Envelope<Record<string, unknown>[]>).data;
      const v2Records = (v2All.body as Envelope<Record<string, unknown>[]>).data;
      expect([v1Records.length, v2Records.length]).toEqual([1504, 1504]);
      expect(v1Records.at(-1)).toEqual({
        id: 1504,
        name: "P1500",
        email: "p1500@example.com",
        legacy_code: null,
        status: "bulk",
      });
      expect(v2Records.at(-1)).toEqual({
        id: 1504,
        full_name: "P1500",
        email: "p1500@example.com",
        tier: 2,
        status: "bulk",
      });

      // v3 is v2's shape, also under the new names.
      expect((await api.get("/customers/v3/show/1")).text).toBe(shown.text);

      // A batch and expand follow the version too (issue 28): its names, its fields, its defaults.
      const batch = await api.post("/v1/batch", {
        operations: [
          { action: "create", table: "orders", data: { buyer_id: 1 } },
          { action: "create", table: "customers", data: { name: "Eve", email: "eve@example.com" } },
          { action: "create", table: "orders", data: { buyer_id: { $ref: "1.id" } } },
        ],
      });
      expect(batch.status, batch.text).toBe(200);
      expect((batch.body as Envelope<unknown>).data).toEqual([
        { id: 1, buyer_id: 1 },
        { id: 1505, name: "Eve", email: "eve@example.com", legacy_code: null, status: "new" },
        { id: 2, buyer_id: 1505 },
      ]);
      const inV2 = await api.post("/v2/batch", {
        operations: [{ action: "create", table: "orders", data: { buyer_id: 1 } }],
      });
      expect(inV2.status).toBe(400);
      expect(inV2.body).toEqual(
        failure("operations[0]: Invalid request: customer_id is required; unknown field buyer_id"),
      );
      expect((await api.get("/orders/v1/show/1?expand=buyer")).text).toBe(
        `{"success":true,"message":"Data found.","data":{"id":1,"buyer_id":1,"buyer":${before[1]!.slice(before[1]!.indexOf('"data":') + 7, -1)}}}`,
      );
      expect((await api.get("/orders/v2/show/1?expand=buyer")).body).toEqual({
        success: true,
        message: "Data found.",
        data: { id: 1, customer_id: 1, note: null, buyer: (shown.body as Envelope<unknown>).data },
      });
      expect((await api.get("/customers/v2/show/1505?expand=orders")).body).toMatchObject({
        data: { full_name: "Eve", tier: 1, orders: [{ id: 2, customer_id: 1505, note: null }] },
      });
      // The whole table, streamed, each batch of records with its orders in v1's names.
      const v1Expanded = (await api.get("/customers/v1/list?expand=orders")).body as Envelope<
        Record<string, unknown>[]
      >;
      expect(v1Expanded.data).toHaveLength(1505);
      expect(v1Expanded.data[0]!.orders).toEqual([{ id: 1, buyer_id: 1 }]);
      expect(v1Expanded.data.at(-1)).toMatchObject({ name: "Eve", orders: [{ id: 2, buyer_id: 1505 }] });
      expect(v1Expanded.data.filter((customer) => (customer.orders as unknown[]).length > 0)).toHaveLength(2);

      // The deprecated version says so on every route; the others do not.
      for (const answer of [
        await api.get("/customers/v1/list"),
        await api.get("/customers/v1/show/1"),
        await api.get("/customers/v1/show/999"),
        await api.post("/customers/v1/create", {}),
        await api.post("/customers/v1/update/1", { name: "Ada" }),
        await api.del("/customers/v1/delete/3"),
      ]) {
        expect(answer.headers.get("deprecation")).toBe(DEPRECATION);
        expect(answer.headers.get("sunset")).toBe(SUNSET);
      }
      for (const answer of [await api.get("/customers/v2/list"), await api.get("/customers/v3/show/1")]) {
        expect(answer.headers.get("deprecation")).toBeNull();
        expect(answer.headers.get("sunset")).toBeNull();
      }
      // The documents: v1 marks every operation deprecated and keeps its field names.
      const v1Doc = (await api.get("/v1/openapi.json")).body as Envelope<never> & {
        paths: Record<string, Record<string, { deprecated?: boolean }>>;
        components: { schemas: Record<string, { properties: object }> };
      };
      const operations = Object.values(v1Doc.paths).flatMap((path) => Object.values(path));
      expect(operations.every((operation) => operation.deprecated === true)).toBe(true);
      expect(Object.keys(v1Doc.components.schemas.CustomersRecord!.properties)).toEqual([
        "id",
        "name",
        "email",
        "legacy_code",
        "status",
      ]);
      const v2Doc = (await api.get("/v2/openapi.json")).body as typeof v1Doc;
      expect(
        Object.values(v2Doc.paths)
          .flatMap((path) => Object.values(path))
          .some((operation) => operation.deprecated),
      ).toBe(false);
      expect(Object.keys(v2Doc.components.schemas.CustomersRecord!.properties)).toEqual([
        "id",
        "full_name",
        "email",
        "tier",
        "status",
      ]);
    });
  });
}
