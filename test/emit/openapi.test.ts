import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { openApiDocument, singular } from "../../src/emit/openapi.ts";
import { tableSchemas } from "../../src/emit/schemas.ts";
import type { Model } from "../../src/model/types.ts";
import { FORMAT_PATTERNS, formats } from "../../src/runtime/formats.ts";
import { UUID_EXAMPLES } from "../../src/emit/examples.ts";
import { REPO } from "../helpers/generate.ts";
import { modelFromText, readModel } from "../helpers/manifest.ts";
import { ResponseValidator, type OpenApiDocument } from "../helpers/openapi.ts";

// The OpenAPI 3.1 documents tablegen writes into a server (openapi/<version>.json): what they
// describe, checked on the model alone; that @redocly/cli finds no error in any golden one; and that
// the response validator the end-to-end suites use catches an answer they do not describe.

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const blog = await readModel(join(REPO, "examples", "blog.yaml"));
const v1 = openApiDocument(blog, "v1") as OpenApiDocument;
const v2 = openApiDocument(blog, "v2") as OpenApiDocument;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A schema of the document without its annotations: the object the server compiles. */
function compiled(schema: Json): Json {
  const properties = Object.entries(schema.properties as Json).map(([name, { examples, pattern, ...property }]) => {
    expect(examples, name).toHaveLength(1);
    expect(pattern, name).toBe(FORMAT_PATTERNS[property.format as keyof typeof FORMAT_PATTERNS]);
    return [name, property];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
}

function operations(document: OpenApiDocument): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation: operation as Json })),
  );
}

const operation = (document: OpenApiDocument, id: string) =>
  operations(document).find(({ operation: candidate }) => candidate.operationId === id)!.operation;
const resolve = (document: OpenApiDocument, node: unknown) =>
  new ResponseValidator([document]).resolve(document, node) as Json;
/**
 * Ajv's compile, once per schema text: the filters of every field of a type have the same schema, and
 * Ajv compiles a schema anew for every object (the same text gets the same validator).
 */
function compiler(ajv: Ajv2020): (schema: Json) => ValidateFunction {
  const validators = new Map<string, ValidateFunction>();
  return (schema) => {
    const text = JSON.stringify(schema);
    let validate = validators.get(text);
    if (!validate) validators.set(text, (validate = ajv.compile(schema)));
    return validate;
  };
}
const messageOf = (document: OpenApiDocument, response: unknown) =>
  resolve(document, response).content["application/json"].schema.properties.message;

describe("the OpenAPI document of a version", () => {
  it("is OpenAPI 3.1 with every route and query the version serves, under names a client turns into good ones", () => {
    expect(v1.openapi).toBe("3.1.0");
    expect(v1.info).toMatchObject({ title: "blog API", version: "v1" });
    expect(
      operations(v1).map(({ method, path, operation: op }) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    ).toEqual([
      "listUsers GET /blog/users/v1/list",
      "getUser GET /blog/users/v1/show/{id}",
      "createUser POST /blog/users/v1/create",
      "updateUser POST /blog/users/v1/update/{id}",
      "deleteUser DELETE /blog/users/v1/delete/{id}",
      "listPosts GET /blog/posts/v1/list",
      "getPost GET /blog/posts/v1/show/{id}",
      "createPost POST /blog/posts/v1/create",
      "updatePost POST /blog/posts/v1/update/{id}",
      "deletePost DELETE /blog/posts/v1/delete/{id}",
      "listCategories GET /blog/categories/v1/list",
      "getCategory GET /blog/categories/v1/show/{id}",
      "createCategory POST /blog/categories/v1/create",
      "updateCategory POST /blog/categories/v1/update/{id}",
      "deleteCategory DELETE /blog/categories/v1/delete/{id}",
      "queryCategoryPosts GET /blog/v1/category_posts",
      "runBatch POST /blog/v1/batch",
      "getOpenApiDocument GET /blog/v1/openapi.json",
    ]);
    // v2 serves comments and recent_posts, and no longer categories.
    const ids = operations(v2).map(({ operation: op }) => op.operationId);
    expect(ids).toEqual(expect.arrayContaining(["listComments", "deleteComment", "queryRecentPosts"]));
    expect(ids.filter((id) => /(Category|Categories)$/.test(id))).toEqual([]);
  });

  it("applies the X-API-SIGNATURE apiKey scheme to every operation", () => {
    expect(v1.components.securitySchemes).toEqual({
      apiSignature: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-SIGNATURE" }),
    });
    expect(v1.security).toEqual([{ apiSignature: [] }]);
    for (const { operation: op } of operations(v1)) expect(op.security, op.operationId).toBeUndefined();
  });

  it("holds the very JSON Schemas the server compiles: records, and the bodies of create and update", () => {
    const users = blog.tables.find((table) => table.name === "users")!;
    const schemas = v1.components.schemas as Json;
    // With annotations only: an example on each property, and beside a format of the contract's own the
    // pattern the server checks it with (neither changes what the schema accepts).
    expect(compiled(schemas.UsersRecord)).toEqual(tableSchemas(users).record);
    expect(compiled(schemas.UsersCreate)).toEqual(tableSchemas(users).create);
    expect(compiled(schemas.UsersUpdate)).toEqual(tableSchemas(users).update);
    expect(operation(v1, "createUser").requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/UsersCreate" } } },
    });
    // Required fields of a create, any non-empty subset on update, formats and lengths.
    expect(schemas.UsersCreate.required).toEqual(["name", "email"]);
    expect(schemas.UsersUpdate).toMatchObject({ minProperties: 1, additionalProperties: false });
    expect(schemas.UsersCreate.properties).toMatchObject({
      name: { type: "string", minLength: 1, maxLength: 255 },
      email: { type: "string", format: "email", maxLength: 254 },
      phone: { type: ["string", "null"], format: "phone", maxLength: 32 },
      created_at: { type: ["string", "null"], format: "date-time" },
    });
    expect((schemas.PostsCreate as Json).properties.category_id).toEqual({
      type: ["string", "null"],
      format: "uuid",
      examples: [UUID_EXAMPLES[0]],
    });
    expect((schemas.CategoriesRecord as Json).properties.id).toEqual({
      type: "string",
      format: "uuid",
      examples: [UUID_EXAMPLES[0]],
    });
  });

  it("answers every status an operation can meet, each in the envelope, with the fixed messages as constants", () => {
    const statuses = (id: string) => Object.keys(operation(v1, id).responses);
    expect(statuses("listUsers")).toEqual(["200", "400", "401", "403", "408", "429", "500", "503"]);
    // A show's 400: a bad `expand` name (issue 28), or an X-Consistency header that is neither strong nor eventual (issue 30).
    expect(statuses("getUser")).toEqual(["200", "400", "401", "403", "404", "408", "429", "500", "503"]);
    expect(statuses("createUser")).toEqual([
      "201",
      "400",
      "401",
      "403",
      "408",
      "409",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
    const writes = ["200", "400", "401", "403", "404", "408", "409", "413", "415", "429", "500", "503"];
    expect(statuses("updateUser")).toEqual(writes);
    expect(statuses("deleteUser")).toEqual(writes);
    expect(statuses("createPost")).not.toContain("409"); // posts has no unique field
    expect(statuses("queryCategoryPosts")).toEqual(["200", "400", "401", "403", "408", "429", "500", "503"]);
    // Every valid key may read the documents, whatever its scope; a key with a limit counts them too.
    expect(statuses("getOpenApiDocument")).toEqual(["200", "401", "408", "429", "500", "503"]);

    const responses = operation(v1, "updateUser").responses;
    expect(messageOf(v1, responses["401"])).toEqual({ type: "string", const: "Invalid or missing API signature key" });
    expect(messageOf(v1, responses["404"])).toEqual({ type: "string", const: "Data not found" });
    expect(messageOf(v1, responses["408"])).toEqual({ type: "string", const: "Request timeout" });
    expect(messageOf(v1, responses["413"])).toEqual({ type: "string", const: "Payload too large" });
    expect(messageOf(v1, responses["415"])).toEqual({ type: "string", const: "Unsupported media type" });
    expect(messageOf(v1, responses["500"])).toEqual({ type: "string", const: "Internal server error" });
    expect(messageOf(v1, responses["503"])).toEqual({
      type: "string",
      enum: ["Service unavailable", "Service unavailable: the database schema is newer than this server"],
    });
    expect(messageOf(v1, responses["400"])).toEqual({ type: "string", pattern: "^Invalid request: " });
    // A scoped key's 403 names the action and the table or query; a limited key's 429 says when to retry.
    expect(messageOf(v1, responses["403"])).toEqual({ type: "string", pattern: "^This key may not " });
    expect(messageOf(v1, responses["429"])).toEqual({ type: "string", const: "Too many requests" });
    expect(resolve(v1, responses["429"]).headers).toEqual({
      "Retry-After": {
        description: "Seconds until the key's next window starts.",
        required: true,
        schema: { type: "integer", minimum: 1 },
      },
    });
    expect(messageOf(v1, responses["409"])).toEqual({
      type: "string",
      enum: ["Invalid request: email already exists"],
    });
    expect(messageOf(v2, operation(v2, "deletePost").responses["409"])).toEqual({
      type: "string",
      enum: ["Record is referenced by comments", "Record is referenced by other records"],
    });
    // Posts cascade with their user; the comments on them refuse (the message the server gives).
    expect(messageOf(v2, operation(v2, "deleteUser").responses["409"]).enum).toEqual([
      "Record is referenced by comments (through posts)",
      "Record is referenced by other records",
    ]);
    // v1 has no comments: its messages do not name them (issue 25).
    expect(messageOf(v1, operation(v1, "deleteUser").responses["409"]).enum).toEqual([
      "Record is referenced by other records",
    ]);

    const failure = resolve(v1, responses["404"]).content["application/json"].schema;
    expect(failure).toMatchObject({
      properties: { success: { const: false }, data: { type: "array", maxItems: 0 } },
      required: ["success", "message", "data"],
      additionalProperties: false,
    });
    const created = operation(v1, "createUser").responses["201"].content["application/json"].schema;
    expect(created).toEqual({
      type: "object",
      properties: {
        success: { type: "boolean", const: true },
        message: { type: "string", const: "Record created successfully." },
        data: { $ref: "#/components/schemas/UsersRecord" },
      },
      required: ["success", "message", "data"],
      additionalProperties: false,
    });
    // A delete answers no data.
    expect(operation(v1, "deleteUser").responses["200"].content["application/json"].schema.required).toEqual([
      "success",
      "message",
    ]);
  });

  it("lists the list parameters: limit, offset, sort, after, count, and each field's filters by its type", () => {
    const parameters = operation(v1, "listPosts").parameters.map((parameter: Json) => resolve(v1, parameter));
    const byName = new Map<string, Json>(parameters.map((parameter: Json) => [parameter.name, parameter]));
    expect(parameters.slice(0, 5).map((parameter: Json) => parameter.name)).toEqual([
      "limit",
      "offset",
      "sort",
      "after",
      "count",
    ]);
    expect(byName.get("limit")!.schema).toEqual({ type: "integer", minimum: 1, maximum: 1000, examples: [20] });
    expect(byName.get("count")!.schema).toEqual({ type: "boolean", examples: [true] });
    expect(byName.get("sort")).toMatchObject({ style: "form", explode: false });
    expect(byName.get("sort")!.schema.items.enum).toEqual(
      ["id", "title", "body", "published", "rating", "user_id", "category_id", "published_at"].flatMap((name) => [
        name,
        `-${name}`,
      ]),
    );
    const filters = (field: string) =>
      parameters.map((parameter: Json) => parameter.name).filter((name: string) => name.split("[")[0] === field);
    expect(filters("title")).toEqual([
      "title",
      ...["ne", "gt", "gte", "lt", "lte", "in", "contains", "null"].map((op) => `title[${op}]`),
    ]);
    expect(filters("published")).toEqual(["published", "published[ne]", "published[in]", "published[null]"]);
    expect(filters("category_id")).toEqual(["category_id", "category_id[ne]", "category_id[in]", "category_id[null]"]);
    expect(byName.get("category_id[in]")).toMatchObject({
      style: "form",
      explode: false,
      schema: { type: "array", items: { type: "string", format: "uuid" } },
    });
    expect(byName.get("published_at[gte]")!.schema).toEqual({
      type: "string",
      format: "date-time",
      examples: ["2024-01-31T12:00:00Z"],
    });
    expect(byName.get("rating[lt]")!.schema).toEqual({ type: "number", examples: [1.5] });
    expect(byName.get("id[gt]")!.schema).toEqual({
      type: "integer",
      minimum: -2147483648,
      maximum: 2147483647,
      examples: [1],
    });
    expect(operation(v1, "listCategories").parameters.find((p: Json) => p.name === "after").schema).toEqual({
      type: "string",
      format: "uuid",
      examples: [UUID_EXAMPLES[0]],
    });
    expect(Object.keys(operation(v1, "listPosts").responses["200"].headers)).toEqual(["X-Total-Count", "Link"]);
  });

  it("types a custom query's parameters, all required", () => {
    expect(operation(v2, "queryRecentPosts").parameters).toEqual([
      expect.objectContaining({
        name: "since",
        in: "query",
        required: true,
        schema: { type: "string", format: "date-time" },
      }),
      expect.objectContaining({ name: "published", in: "query", required: true, schema: { type: "boolean" } }),
      { $ref: "#/components/parameters/consistency" },
    ]);
    expect(operation(v1, "queryCategoryPosts").parameters[0]).toMatchObject({
      name: "category_id",
      schema: { type: "string" },
    });
  });

  it("carries the manifest's descriptions of tables, fields and queries", () => {
    expect(v1.tags).toContainEqual({ name: "users", description: "The people who write posts." });
    expect((v1.components.schemas as Json).UsersRecord.description).toBe("The people who write posts.");
    expect((v1.components.schemas as Json).UsersRecord.properties.email.description).toBe(
      "Where the user is reached; no two users share one.",
    );
    expect(operation(v1, "queryCategoryPosts").description).toBe(
      "The posts of one category, with the category's name.",
    );
    expect(operation(v1, "listUsers").description).toMatch(/^The people who write posts\.\n\n/);
  });

  it("holds only JSON Schemas that Ajv compiles in strict mode (draft 2020-12, OpenAPI 3.1's dialect)", () => {
    const ajv = new Ajv2020({ strict: true });
    addFormats(ajv);
    for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
    const compile = compiler(ajv);
    let compiled = 0;
    const visit = (node: unknown, document: OpenApiDocument) => {
      if (Array.isArray(node)) return node.forEach((item) => visit(item, document));
      if (typeof node !== "object" || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === "schema") {
          compile(resolve(document, value));
          compiled++;
        } else visit(value, document);
      }
    };
    for (const document of [v1, v2]) {
      visit(document.paths, document);
      for (const schema of Object.values(document.components.schemas as Json)) compile(resolve(document, schema));
    }
    expect(compiled).toBeGreaterThan(300);
  });

  it("is the same for the same model, and keeps only the shared parameters and answers it uses", () => {
    expect(JSON.stringify(openApiDocument(blog, "v1"))).toBe(JSON.stringify(v1));
    const queriesOnly = modelFromText(
      "m.yaml",
      [
        "project: q",
        "versions: [v1, v2]",
        "tables:",
        "  t:",
        "    versions: [v1]",
        "    fields: { a: TEXT }",
        "queries:",
        "  q:",
        "    versions: [v2]",
        "    sql: SELECT 1 AS one",
        "",
      ].join("\n"),
    );
    const document = openApiDocument(queriesOnly, "v2") as OpenApiDocument;
    expect(Object.keys(document.paths)).toEqual(["/q/v2/q", "/q/v2/openapi.json"]);
    expect(Object.keys(document.components)).toEqual(["securitySchemes", "parameters", "responses"]);
    // Every read takes X-Consistency (issue 30): the one shared parameter a query uses.
    expect(document.components.parameters).toEqual({
      consistency: expect.objectContaining({
        name: "X-Consistency",
        in: "header",
        schema: { type: "string", enum: ["strong", "eventual"], examples: ["strong"] },
      }),
    });
    expect(Object.keys(document.components.responses as Json)).toEqual([
      "BadRequest",
      "Unauthorized",
      "Forbidden",
      "RequestTimeout",
      "TooManyRequests",
      "InternalError",
      "ServiceUnavailable",
    ]);
  });
});

const everyType = await readModel(join(REPO, "test", "fixtures", "every-type.yaml"));
const everyDocuments = everyType.versions.map((version) => openApiDocument(everyType, version) as OpenApiDocument);

describe("examples and patterns", () => {
  /** Every place of a document that needs an example: [where, its schema, its example]. */
  function examplesOf(document: OpenApiDocument): [string, Json, unknown][] {
    const found: [string, Json, unknown][] = [];
    for (const [name, schema] of Object.entries(document.components.schemas as Json))
      for (const [field, property] of Object.entries((schema as Json).properties as Json))
        // Its references followed: a related record (expand), a batch's `$ref` (issue 28).
        found.push([`${name}.${field}`, resolve(document, property), (property as Json).examples?.[0]]);
    for (const { method, path, operation: op } of operations(document)) {
      for (const parameter of (op.parameters ?? []) as Json[]) {
        const resolved = resolve(document, parameter);
        // A required parameter's own example (tools fill it in); an optional one's in its schema.
        expect(resolved.example === undefined, `${path} ${resolved.name}`).toBe(!resolved.required);
        const example = resolved.example ?? resolved.schema.examples?.[0];
        found.push([`${method} ${path} ${resolved.name}`, resolved.schema, example]);
      }
      const body = op.requestBody?.content["application/json"];
      if (body) found.push([`${method} ${path} body`, resolve(document, body.schema), body.example]);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (status.startsWith("2")) continue;
        const media = resolve(document, response).content["application/json"];
        found.push([`${method} ${path} ${status}`, media.schema, media.example]);
      }
    }
    return found;
  }

  it("give every property, parameter, request body and failure an example the server's own checks accept", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
    const compile = compiler(ajv);
    let checked = 0;
    for (const document of [v1, v2, ...everyDocuments]) {
      for (const [where, schema, example] of examplesOf(document)) {
        expect(example, `${where} has no example`).not.toBeUndefined();
        const validate = compile(schema);
        expect(validate(example) ? [] : validate.errors, `${where}: ${JSON.stringify(example)}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it("describe one server: ids and references 1 (a uuid's first example), the delete's id the second record's", () => {
    const parameter = (id: string, name: string) =>
      resolve(
        v1,
        operation(v1, id).parameters.find((p: Json) => resolve(v1, p).name === name),
      );
    expect(["getUser", "updateUser"].map((id) => parameter(id, "id").example)).toEqual([1, 1]);
    expect(parameter("deleteUser", "id").example).toBe(2);
    expect(parameter("getCategory", "id").example).toBe("00000000-0000-4000-8000-000000000001");
    expect(parameter("deleteCategory", "id").example).toBe("00000000-0000-4000-8000-000000000002");
    const schemas = v1.components.schemas as Json;
    expect(schemas.PostsRecord.properties.user_id.examples).toEqual([1]);
    expect(schemas.PostsRecord.properties.category_id.examples).toEqual(["00000000-0000-4000-8000-000000000001"]);
    expect(schemas.UsersRecord.properties.id.examples).toEqual([1]);
    // The list's own parameters and each field's filters: optional, so in their schemas, which a page
    // trying the list does not fill in (it would filter on every field at once).
    expect(
      ["limit", "offset", "sort", "after", "count", "title", "title[in]", "title[null]", "user_id[gt]"].map(
        (name) => parameter("listPosts", name).schema.examples[0],
      ),
    ).toEqual([20, 0, ["-id"], 1, true, "Example title", ["Example title"], false, 1]);
    // Derived from the type, the format, the default and the maxLength.
    expect(
      Object.fromEntries(
        Object.entries(schemas.UsersRecord.properties as Json).map(([name, property]) => [name, property.examples[0]]),
      ),
    ).toEqual({
      id: 1,
      name: "Example name",
      email: "ada@example.com",
      phone: "+1 555 0100",
      bio: "Example bio",
      active: true,
      created_at: "2024-01-31T12:00:00Z",
    });
    expect(schemas.PostsRecord.properties.published.examples).toEqual([false]);
    expect(schemas.PostsRecord.properties.rating.examples).toEqual([1.5]);
  });

  it("give a unique field in a create another value than the record's, so a create beside it does not collide", () => {
    const body = (document: OpenApiDocument, id: string) =>
      operation(document, id).requestBody.content["application/json"].example;
    expect(body(v1, "createUser")).toEqual({
      name: "Example name",
      email: "grace@example.com",
      phone: "+1 555 0100",
      bio: "Example bio",
      active: true,
      created_at: "2024-01-31T12:00:00Z",
    });
    expect(body(v1, "updateUser").email).toBe("ada@example.com");
    expect(body(v1, "createCategory")).toEqual({ name: "Example name 2" });
    const people = everyDocuments[1]!.components.schemas as Json;
    const record = (field: string) => people.PeopleRecord.properties[field].examples[0];
    const created = body(everyDocuments[1]!, "createPerson");
    // Every kind of unique field, within its maxLength, and the manifest's own examples varied.
    expect(["name", "email", "phone", "age", "born"].map((field) => [record(field), created[field]])).toEqual([
      ["Example name", "Example nam2"],
      ["ada@ex.io", "ada2@ex.io"],
      ["(020) 7946 0958", "(020) 7946 0959"],
      [1, 2],
      ["1815-12-10T00:00:00Z", "1815-12-11T00:00:00Z"],
    ]);
    // A unique reference has one id sure to exist, the first record's: a create leaves it null.
    expect(body(everyDocuments[1]!, "createMember")).toMatchObject({ badge_id: null, person_id: 1 });
    expect(body(everyDocuments[1]!, "updateMember")).toMatchObject({
      badge_id: "00000000-0000-4000-8000-000000000001",
    });
  });

  it("take the manifest's example: in records, bodies and filters, under the field's name in each version", () => {
    const [first, second] = everyDocuments as [OpenApiDocument, OpenApiDocument];
    expect((first.components.schemas as Json).PeopleRecord.properties.born.examples).toEqual(["1815-12-10T00:00:00Z"]);
    expect(operation(first, "listPeople").parameters.find((p: Json) => p.name === "born[lt]").schema.examples).toEqual([
      "1815-12-10T00:00:00Z",
    ]);
    expect((second.components.schemas as Json).PeopleUpdate.properties.handle.examples).toEqual(["Example handle"]);
    expect((second.components.schemas as Json).TeamsRecord.properties.title.examples).toEqual(["Analytical engines"]);
  });

  it("give a format of the contract's own the pattern the server checks it with, where requests name it", () => {
    const schemas = v1.components.schemas as Json;
    expect(schemas.UsersCreate.properties.phone).toMatchObject({ format: "phone", pattern: FORMAT_PATTERNS.phone });
    expect(schemas.UsersUpdate.properties.email).toMatchObject({ format: "email", pattern: FORMAT_PATTERNS.email });
    expect(schemas.UsersCreate.properties.created_at.pattern).toBeUndefined(); // a standard format: no pattern
    const phone = new RegExp(schemas.UsersCreate.properties.phone.pattern, "u");
    expect(["+1 555 0100", "(020) 7946 0958", "555-0100 12"].filter((value) => phone.test(value))).toHaveLength(3);
    expect(["lorem ipsum", "12", "+1 555 0100 x"].filter((value) => phone.test(value))).toEqual([]);
  });

  it("give each failure an example of its envelope and message", () => {
    const example = (response: unknown) => resolve(v1, response).content["application/json"].example;
    const responses = operation(v1, "deleteUser").responses;
    expect(example(responses["404"])).toEqual({ success: false, message: "Data not found", data: [] });
    expect(example(responses["400"]).message).toBe("Invalid request: limit must be an integer from 1 to 1000");
    expect(example(responses["403"]).message).toBe("This key may not delete users.");
    expect(example(responses["409"]).message).toBe("Record is referenced by other records");
    expect(example(operation(v1, "createUser").responses["409"]).message).toBe("Invalid request: email already exists");
    expect(example(responses["503"]).message).toBe("Service unavailable");
  });
});

describe("list parameters", () => {
  it("give a field named like one of them its operators only: the name itself is the list parameter", () => {
    const model = modelFromText(
      "m.yaml",
      "project: x\ntables:\n  things:\n    fields: { count: NUMBER, sort: TEXT }\n",
    );
    const document = openApiDocument(model, "v1") as OpenApiDocument;
    const names = (operation(document, "listThings").parameters as Json[]).map(
      (parameter) => resolve(document, parameter).name,
    );
    expect(names.filter((name: string) => name === "count" || name === "sort")).toEqual(["sort", "count"]);
    expect(names).toEqual(expect.arrayContaining(["count[gt]", "sort[contains]"]));
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("operation ids", () => {
  it("name a record in the singular", () => {
    const cases: [string, string][] = [
      ["posts", "post"],
      ["categories", "category"],
      ["addresses", "address"],
      ["boxes", "box"],
      ["matches", "match"],
      ["statuses", "status"],
      ["people", "person"],
      ["news", "news"],
      ["status", "status"],
      ["days", "day"],
      ["courses", "course"],
    ];
    expect(cases.map(([plural]) => [plural, singular(plural)])).toEqual(cases);
  });

  it("stay unique when names agree in the singular or a query's name looks like an operation", () => {
    const model: Model = modelFromText(
      "m.yaml",
      [
        "project: x",
        "tables:",
        "  post:",
        "    fields: { a: TEXT }",
        "  posts:",
        "    fields: { a: TEXT }",
        "queries:",
        "  list_posts:",
        "    sql: SELECT a FROM posts",
        "",
      ].join("\n"),
    );
    const ids = operations(openApiDocument(model, "v1") as OpenApiDocument).map(({ operation: op }) => op.operationId);
    expect(ids).toEqual([
      "listPost",
      "getPostRecord",
      "createPostRecord",
      "updatePostRecord",
      "deletePostRecord",
      "listPosts",
      "getPostsRecord",
      "createPostsRecord",
      "updatePostsRecord",
      "deletePostsRecord",
      "queryListPosts",
      "runBatch",
      "getOpenApiDocument",
    ]);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("the response validator of the end-to-end suites", () => {
  const validator = new ResponseValidator([v1, v2]);
  const answer = (method: string, path: string, status: number, body: unknown, headers: Record<string, string> = {}) =>
    validator.problems({
      method,
      url: `http://127.0.0.1:1${path}`,
      status,
      headers: new Headers({ "content-type": "application/json; charset=utf-8", ...headers }),
      text: JSON.stringify(body),
    });
  const record = {
    id: 1,
    name: "Ada",
    email: "ada@example.com",
    phone: null,
    bio: null,
    active: true,
    created_at: "2024-01-31T12:00:00Z",
  };

  it("accepts what the documents describe", () => {
    expect(
      answer("GET", "/blog/users/v1/show/1", 200, { success: true, message: "Data found.", data: record }),
    ).toEqual([]);
    expect(
      answer(
        "GET",
        "/blog/users/v2/list/?limit=1",
        200,
        { success: true, message: "Data found.", data: [record] },
        { "x-total-count": "3" },
      ),
    ).toEqual([]);
    expect(
      answer("GET", "/blog/users/v1/show/x", 404, { success: false, message: "Data not found", data: [] }),
    ).toEqual([]);
    expect(
      answer("PUT", "/blog/users/v1/show/1", 405, { success: false, message: "Method not allowed", data: [] }),
    ).toEqual([]);
  });

  it("refuses a status the operation does not list, a record that is not the schema's, a wrong message or header", () => {
    expect(answer("GET", "/blog/users/v1/show/1", 409, { success: false, message: "x", data: [] })).toEqual([
      "GET /blog/users/v1/show/{id} (getUser) → 409: the document lists no such status",
    ]);
    expect(
      answer("GET", "/blog/users/v1/show/1", 200, {
        success: true,
        message: "Data found.",
        data: { ...record, active: "yes" },
      }),
    ).toEqual([expect.stringMatching(/\/data\/active must be boolean/)]);
    expect(
      answer("GET", "/blog/users/v1/show/1", 200, {
        success: true,
        message: "Data found.",
        data: { ...record, extra: 1 },
      }),
    ).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(answer("GET", "/blog/users/v1/show/1", 404, { success: false, message: "Not here", data: [] })).toEqual([
      expect.stringMatching(/\/message must be equal to constant/),
    ]);
    expect(
      answer(
        "GET",
        "/blog/users/v1/list",
        200,
        { success: true, message: "Data found.", data: [] },
        { "x-total-count": "many" },
      ),
    ).toContainEqual(expect.stringMatching(/header X-Total-Count is not a number/));
    expect(answer("GET", "/blog/nothing", 200, { success: true })).toEqual([
      "GET /blog/nothing → 200 (no operation): only 401, 404, 405 can answer it",
    ]);
  });
});

/** Concatenated JSON values, as `redocly lint --format=json` prints one per file. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") {
      if (depth++ === 0) start = i;
    } else if (char === "}" && --depth === 0) values.push(JSON.parse(text.slice(start, i + 1)));
  }
  return values;
}

describe("@redocly/cli lint", () => {
  it("finds no error in the documents of every example and golden case (the API's license is its owner's to state)", async () => {
    const golden = join(REPO, "test", "golden");
    const files = readdirSync(golden, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /(^|\/)openapi$/.test(entry.parentPath) && entry.name.endsWith(".json"))
      .map((entry) => relative(REPO, join(entry.parentPath, entry.name)))
      .sort();
    expect(files).toEqual(
      expect.arrayContaining([
        "test/golden/blog/openapi/v1.json",
        "test/golden/blog/openapi/v2.json",
        "test/golden/crm/openapi/v1.json",
        "test/golden/tasks/openapi/v1.json",
      ]),
    );
    expect(files.length).toBeGreaterThanOrEqual(16);
    const result = await execa(
      process.execPath,
      [join(REPO, "node_modules/@redocly/cli/bin/cli.js"), "lint", "--format=json", ...files],
      {
        cwd: REPO,
        reject: false,
        env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      },
    );
    const reports = jsonValues(result.stdout) as {
      totals: { errors: number };
      problems: { ruleId: string; severity: string; message: string }[];
    }[];
    expect(reports).toHaveLength(files.length);
    const problems = reports
      .flatMap((report) => report.problems)
      .filter((problem) => problem.ruleId !== "info-license");
    expect(problems).toEqual([]);
    expect(reports.map((report) => report.totals.errors)).toEqual(files.map(() => 0));
    expect(result.exitCode).toBe(0);
    // Every document is what the generator writes now (test/golden.test.ts checks that), so it is their text that was linted.
    expect(JSON.parse(readFileSync(join(REPO, files[0]!), "utf8")).openapi).toBe("3.1.0");
  });
});
