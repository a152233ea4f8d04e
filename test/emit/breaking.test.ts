import { describe, expect, it } from "vitest";
import { breakingChanges, documentBreaks } from "../../src/emit/breaking.ts";
import { openApiDocuments } from "../../src/emit/openapi.ts";
import type { JsonSchema } from "../../src/emit/schemas.ts";
import { FORMAT_PATTERNS } from "../../src/runtime/formats.ts";
import { modelFromText } from "../helpers/manifest.ts";

// The breaking-change guard's comparison: the OpenAPI documents the real emitter makes of a
// published manifest and of an edited one, and the exact line of each break (or none).

const PUBLISHED = `project: shop
tables:
  customers:
    fields:
      name: { type: TEXT, required: true, maxLength: 100 }
      email: { type: EMAIL, unique: true }
      phone: PHONE
      score: { type: NUMBER, integer: true }
      bio: PARAGRAPH
  orders:
    fields:
      customer_id: { type: NUMBER, required: true, references: customers }
      total: NUMBER
queries:
  big_orders:
    params: { min: NUMBER }
    sql: SELECT id, total FROM orders WHERE total > :min
`;

const documents = (text: string) => openApiDocuments(modelFromText("tablegen.yaml", text));
const published = documents(PUBLISHED);

/** The breaks of the published manifest edited by each replacement, in turn. */
function breaks(...edits: [string, string][]): string[] {
  let text = PUBLISHED;
  for (const [from, to] of edits) {
    expect(text).toContain(from);
    text = text.replace(from, to);
  }
  return breakingChanges(published, documents(text));
}

/** The breaks of v1's document edited by hand (what the manifest cannot change: messages, statuses). */
function edited(edit: (document: any) => void): string[] {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const document = structuredClone(published.get("v1")!);
  edit(document);
  return documentBreaks("v1", published.get("v1")!, document);
}

const CUSTOMERS_LIST = "v1: GET /shop/customers/v1/list";

describe("the breaking-change guard's comparison", () => {
  it("finds nothing in an unchanged manifest, nor in additive changes", () => {
    expect(breaks()).toEqual([]);
    expect(
      breaks(
        ["tables:", "versions: [v1, v2]\ntables:"], // a new version
        ["maxLength: 100", "maxLength: 200"], // a wider maxLength
        [
          "      bio: PARAGRAPH\n",
          "      bio: { type: PARAGRAPH, description: About them. }\n" + // a description
            "      nickname: TEXT\n" + // a new optional field
            "      level: { type: NUMBER, integer: true, required: true, default: 1 }\n" + // required, with a default
            "  tags:\n    fields:\n      label: TEXT\n      customer_id: { type: NUMBER, references: customers }\n", // a new table
        ],
        ["queries:\n", "queries:\n  all_tags:\n    sql: SELECT id, label FROM tags\n"], // a new query
      ),
    ).toEqual([]);
  });

  it("takes expand and the batch route (issue 28) as additions to a document published before them", () => {
    // v1's document as tablegen made it before issue 28: no expand parameter, no show 400, reads
    // answering plain records, no batch route and none of their components.
    const before = structuredClone(published.get("v1")!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    delete before.paths["/shop/v1/batch"];
    before.tags = before.tags.filter((tag: { name: string }) => tag.name !== "batch");
    for (const [path, item] of Object.entries(before.paths) as [string, any][]) {
      for (const operation of Object.values(item) as any[]) {
        operation.parameters = operation.parameters?.filter(
          (parameter: { name?: string }) => parameter.name !== "expand",
        );
        if (path.includes("/show/")) delete operation.responses["400"];
      }
    }
    for (const name of Object.keys(before.components.schemas))
      if (/Expanded[12]?$|^Batch/.test(name)) delete before.components.schemas[name];
    for (const name of Object.keys(before.components.responses))
      if (name.startsWith("Batch")) delete before.components.responses[name];
    const text = JSON.stringify(before.paths).replace(/(#\/components\/schemas\/\w+)Expanded"/g, '$1Record"');
    before.paths = JSON.parse(text);
    expect(JSON.stringify(before)).not.toMatch(/expand|Expanded|Batch|batch/);
    expect(documentBreaks("v1", before, published.get("v1")!)).toEqual([]);
  });

  it("reports a removed table once, and a removed query", () => {
    const withoutOrders = PUBLISHED.replace(/ {2}orders:[\s\S]*$/, "");
    expect(breakingChanges(published, documents(withoutOrders))).toEqual([
      "v1: table orders removed, with its 5 routes under /shop/orders/v1/",
      "v1: route GET /shop/v1/big_orders removed",
      // customers has no relation left: expand=orders is refused now (issue 28).
      'v1: GET /shop/customers/v1/list: query parameter "expand" removed',
      'v1: GET /shop/customers/v1/show/{id}: query parameter "expand" removed',
    ]);
  });

  it("reports a removed field in the records, both bodies, the list's filters and its sort", () => {
    expect(breaks(["      bio: PARAGRAPH\n", ""])).toEqual([
      `${CUSTOMERS_LIST}: query parameter "sort" no longer accepts "bio", "-bio"`,
      `${CUSTOMERS_LIST}: query parameters "bio", "bio[ne]", "bio[gt]", "bio[gte]", "bio[lt]", "bio[lte]", "bio[in]", ` +
        `"bio[contains]", "bio[null]" removed`,
      'v1: schema CustomersRecord: field "bio" removed',
      'v1: schema CustomersCreate: field "bio" removed',
      'v1: schema CustomersUpdate: field "bio" removed',
    ]);
  });

  it("reports a renamed field as renamed", () => {
    expect(breaks(["      bio: PARAGRAPH\n", "      about: PARAGRAPH\n"])).toEqual([
      `${CUSTOMERS_LIST}: query parameter "sort" no longer accepts "bio", "-bio"`,
      `${CUSTOMERS_LIST}: query parameters "bio", "bio[ne]", "bio[gt]", "bio[gte]", "bio[lt]", "bio[lte]", "bio[in]", ` +
        `"bio[contains]", "bio[null]" removed`,
      'v1: schema CustomersRecord: field "bio" renamed to "about"',
      'v1: schema CustomersCreate: field "bio" renamed to "about"',
      'v1: schema CustomersUpdate: field "bio" renamed to "about"',
    ]);
  });

  it("reports a changed type, and a nullable answer", () => {
    expect(breaks(["score: { type: NUMBER, integer: true }", "score: TEXT"])).toEqual([
      `${CUSTOMERS_LIST}: query parameters "score", "score[ne]", "score[gt]", "score[gte]", "score[lt]", "score[lte]", ` +
        `"score[in]" changed type from integer to string`,
      'v1: schema CustomersRecord: field "score" changed type from integer or null to string or null',
      'v1: schema CustomersCreate: field "score" changed type from integer or null to string or null',
      'v1: schema CustomersUpdate: field "score" changed type from integer or null to string or null',
    ]);
    // An integer that becomes any number is accepted as before, but no longer answered as an integer.
    expect(breaks(["score: { type: NUMBER, integer: true }", "score: NUMBER"])).toEqual([
      'v1: schema CustomersRecord: field "score" changed type from integer or null to number or null',
    ]);
    // A field no longer required: requests may leave it out, but answers may now hold null.
    expect(
      breaks(["name: { type: TEXT, required: true, maxLength: 100 }", "name: { type: TEXT, maxLength: 100 }"]),
    ).toEqual(['v1: schema CustomersRecord: field "name" may now be null']);
  });

  it("reports a changed format", () => {
    expect(breaks(["email: { type: EMAIL, unique: true }", "email: { type: PHONE, unique: true }"])).toEqual([
      'v1: schema CustomersCreate: field "email" changed format from email to phone',
      'v1: schema CustomersCreate: field "email" narrowed maxLength from 254 to 32',
      'v1: schema CustomersUpdate: field "email" changed format from email to phone',
      'v1: schema CustomersUpdate: field "email" narrowed maxLength from 254 to 32',
    ]);
  });

  it("reports a changed id kind: path ids, records, references, filters", () => {
    const uuid = "changed type from integer to string (uuid)";
    expect(breaks(["  customers:\n", "  customers:\n    id: uuid\n"])).toEqual([
      `${CUSTOMERS_LIST}: query parameters "after", "id", "id[ne]", "id[in]" ${uuid}`,
      `${CUSTOMERS_LIST}: query parameters "id[gt]", "id[gte]", "id[lt]", "id[lte]" removed`,
      `v1: schema CustomersRecord: field "id" ${uuid}`,
      `v1: GET /shop/customers/v1/show/{id}: path parameter "id" ${uuid}`,
      `v1: POST /shop/customers/v1/update/{id}: path parameter "id" ${uuid}`,
      `v1: DELETE /shop/customers/v1/delete/{id}: path parameter "id" ${uuid}`,
      `v1: GET /shop/orders/v1/list: query parameters "customer_id", "customer_id[ne]", "customer_id[in]" ${uuid}`,
      'v1: GET /shop/orders/v1/list: query parameters "customer_id[gt]", "customer_id[gte]", "customer_id[lt]", ' +
        '"customer_id[lte]" removed',
      `v1: schema OrdersRecord: field "customer_id" ${uuid}`,
      `v1: schema OrdersCreate: field "customer_id" ${uuid}`,
      `v1: schema OrdersUpdate: field "customer_id" ${uuid}`,
    ]);
  });

  // Issue 30: bigint ids (PostgreSQL) travel as strings of digits.
  it("finds a new bigint table, and new references to it, additive; a changed id kind breaks", () => {
    const pg = PUBLISHED.replace("tables:", "database: postgresql\ntables:");
    const events =
      "  events:\n    id: bigint\n    fields:\n      customer_id: { type: NUMBER, references: customers }\n";
    const withEvents = pg.replace("queries:", `${events}queries:`);
    expect(breakingChanges(documents(pg), documents(withEvents))).toEqual([]);
    const referring = withEvents.replace(
      "      total: NUMBER\n",
      "      total: NUMBER\n      event_id: { type: NUMBER, references: events }\n",
    );
    expect(breakingChanges(documents(withEvents), documents(referring))).toEqual([]);

    const int64 = "changed type from integer to string (int64)";
    expect(breakingChanges(documents(pg), documents(pg.replace("  orders:\n", "  orders:\n    id: bigint\n")))).toEqual(
      [
        `v1: GET /shop/orders/v1/list: query parameters "after", "id", "id[ne]", "id[gt]", "id[gte]", "id[lt]", "id[lte]", "id[in]" ${int64}`,
        `v1: schema OrdersRecord: field "id" ${int64}`,
        `v1: GET /shop/orders/v1/show/{id}: path parameter "id" ${int64}`,
        `v1: POST /shop/orders/v1/update/{id}: path parameter "id" ${int64}`,
        `v1: DELETE /shop/orders/v1/delete/{id}: path parameter "id" ${int64}`,
      ],
    );
    const uuid = "changed format from int64 to uuid";
    expect(breakingChanges(documents(withEvents), documents(withEvents.replace("id: bigint", "id: uuid")))).toEqual([
      `v1: GET /shop/events/v1/list: query parameters "after", "id", "id[ne]", "id[in]" ${uuid}`,
      'v1: GET /shop/events/v1/list: query parameters "id[gt]", "id[gte]", "id[lt]", "id[lte]" removed',
      `v1: schema EventsRecord: field "id" ${uuid}`,
      `v1: GET /shop/events/v1/show/{id}: path parameter "id" ${uuid}`,
      `v1: POST /shop/events/v1/update/{id}: path parameter "id" ${uuid}`,
      `v1: DELETE /shop/events/v1/delete/{id}: path parameter "id" ${uuid}`,
    ]);
  });

  it("reports a field that became required, and a new required one", () => {
    expect(breaks(["phone: PHONE", "phone: { type: PHONE, required: true }"])).toEqual([
      'v1: schema CustomersCreate: field "phone" became required',
      'v1: schema CustomersCreate: field "phone" no longer accepts null',
      'v1: schema CustomersCreate: field "phone" narrowed minLength from none to 1',
      'v1: schema CustomersUpdate: field "phone" no longer accepts null',
      'v1: schema CustomersUpdate: field "phone" narrowed minLength from none to 1',
    ]);
    expect(
      breaks(["      bio: PARAGRAPH\n", "      bio: PARAGRAPH\n      code: { type: TEXT, required: true }\n"]),
    ).toEqual(['v1: schema CustomersCreate: field "code" added as required']);
  });

  it("reports a narrowed or newly set maxLength", () => {
    expect(
      breaks(["maxLength: 100", "maxLength: 50"], ["bio: PARAGRAPH", "bio: { type: PARAGRAPH, maxLength: 500 }"]),
    ).toEqual([
      'v1: schema CustomersCreate: field "name" narrowed maxLength from 100 to 50',
      'v1: schema CustomersCreate: field "bio" narrowed maxLength from none to 500',
      'v1: schema CustomersUpdate: field "name" narrowed maxLength from 100 to 50',
      'v1: schema CustomersUpdate: field "bio" narrowed maxLength from none to 500',
    ]);
  });

  it("reports a query's removed, retyped and new required parameters", () => {
    expect(
      breaks(["params: { min: NUMBER }", "params: { min: TEXT, max: NUMBER }"], ["> :min", "> :min AND total < :max"]),
    ).toEqual([
      'v1: GET /shop/v1/big_orders: query parameter "min" changed type from number to string',
      'v1: GET /shop/v1/big_orders: query parameter "max" added as required',
    ]);
    expect(breaks(["params: { min: NUMBER }", "params: { max: NUMBER }"], ["> :min", "< :max"])).toEqual([
      'v1: GET /shop/v1/big_orders: query parameter "min" removed',
      'v1: GET /shop/v1/big_orders: query parameter "max" added as required',
    ]);
  });

  it("reports a removed status (a unique field's 409)", () => {
    expect(breaks(["email: { type: EMAIL, unique: true }", "email: EMAIL"])).toEqual([
      "v1: POST /shop/customers/v1/create: response 409 removed",
      "v1: POST /shop/customers/v1/update/{id}: response 409 removed",
    ]);
  });

  it("takes the answers of scoped keys (403, 429) as additions to a document published before them", () => {
    // v1 as a tablegen before issue 29 wrote it: no 403 or 429 anywhere, the same descriptions otherwise.
    const before = structuredClone(published.get("v1")!) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const operations of Object.values(before.paths) as Record<string, { responses: Record<string, unknown> }>[])
      for (const operation of Object.values(operations)) {
        delete operation.responses["403"];
        delete operation.responses["429"];
      }
    delete before.components.responses.Forbidden;
    delete before.components.responses.TooManyRequests;
    expect(documentBreaks("v1", before, published.get("v1")!)).toEqual([]);
    // The guard does compare them: taking them away again is a break.
    expect(documentBreaks("v1", published.get("v1")!, before)).toContain(
      "v1: GET /shop/customers/v1/list: response 403 removed",
    );
  });

  it("takes examples, and the pattern of a format of the contract's own, as no change (issue 31)", () => {
    // v1 as a tablegen before issue 31 wrote it: no examples, and formats without their patterns.
    const patterns: unknown[] = Object.values(FORMAT_PATTERNS);
    const before = JSON.parse(
      JSON.stringify(published.get("v1")!, (key, value) =>
        key === "example" || key === "examples" || (key === "pattern" && patterns.includes(value)) ? undefined : value,
      ),
    );
    expect(JSON.stringify(before)).not.toMatch(/"examples?":/);
    expect(JSON.stringify(before)).not.toContain(JSON.stringify(FORMAT_PATTERNS.phone));
    expect(JSON.stringify(published.get("v1")!)).toContain(JSON.stringify(FORMAT_PATTERNS.phone));
    expect(documentBreaks("v1", before, published.get("v1")!)).toEqual([]);
    expect(documentBreaks("v1", published.get("v1")!, before)).toEqual([]);
    // An example may change; a pattern that is not the format's own is a narrower request.
    expect(
      edited((document) => {
        document.components.schemas.CustomersCreate.properties.phone.examples = ["+44 20 7946 0958"];
        document.paths["/shop/customers/v1/show/{id}"].get.parameters[0].example = 7;
      }),
    ).toEqual([]);
    expect(
      edited((document) => {
        document.components.schemas.CustomersCreate.properties.phone.pattern = "^[0-9]+$";
      }),
    ).toEqual(['v1: schema CustomersCreate: field "phone" changed pattern from "none" to "^[0-9]+$"']);
  });

  it("reports a removed version", () => {
    const both = documents(PUBLISHED.replace("tables:", "versions: [v1, v2]\ntables:"));
    expect(breakingChanges(both, published)).toEqual(["v2: version removed: the manifest no longer has it"]);
  });

  it("reports a changed message or status, in a shared response or an operation's own", () => {
    expect(
      edited((document) => {
        document.components.responses.NotFound.content["application/json"].schema.properties.message.const =
          "Not found";
        const create = document.paths["/shop/customers/v1/create"].post;
        create.responses["201"].content["application/json"].schema.properties.message.const = "Created.";
        const update = document.paths["/shop/customers/v1/update/{id}"].post;
        update.responses["201"] = update.responses["200"];
        delete update.responses["200"];
      }),
    ).toEqual([
      'v1: response NotFound: field "message" changed from "Data not found" to "Not found"',
      'v1: POST /shop/customers/v1/create: field "message" of response 201 changed from "Record created successfully." ' +
        'to "Created."',
      "v1: POST /shop/customers/v1/update/{id}: response 200 removed",
    ]);
  });

  it("reports narrowed shared parameters where each operation uses them", () => {
    expect(
      edited((document) => {
        document.components.parameters.limit.schema.maximum = 100;
      }),
    ).toEqual([
      `${CUSTOMERS_LIST}: query parameter "limit" narrowed maximum from 1000 to 100`,
      'v1: GET /shop/orders/v1/list: query parameter "limit" narrowed maximum from 1000 to 100',
    ]);
  });

  it("follows $refs: a component renamed with the same content breaks nothing, a change is located by its old name", () => {
    const renamed = (change?: (schema: JsonSchema) => void) =>
      edited((document) => {
        const schemas = document.components.schemas;
        schemas.CustomersRecordV1 = schemas.CustomersRecord;
        delete schemas.CustomersRecord;
        change?.(schemas.CustomersRecordV1);
        const text = JSON.stringify(document.paths).replaceAll('/CustomersRecord"', '/CustomersRecordV1"');
        document.paths = JSON.parse(text);
      });
    expect(renamed()).toEqual([]);
    expect(renamed((schema) => delete (schema.properties as JsonSchema).phone)).toEqual([
      'v1: schema CustomersRecord: field "phone" removed',
    ]);
  });
});
