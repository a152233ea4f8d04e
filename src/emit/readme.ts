import type { Field, Model, ValueKind } from "../model/types.ts";
import { MAX_EXPAND_DEPTH, MAX_EXPANDED_MANY, versionExpansions } from "../model/expansions.ts";
import { goneMessage, hasVersionedFields, tableInVersion } from "../model/versions.ts";
import { templatePath } from "../targets/target.ts";

const SAMPLES: Record<string, unknown> = {
  NUMBER: 1,
  TEXT: "text",
  EMAIL: "ada@example.com",
  PHONE: "+1 555 0100",
  PARAGRAPH: "Some longer text.",
  BOOLEAN: true,
  DATETIME: "2024-01-31T12:00:00Z",
};
const SAMPLE_UUID = "0b9f3c1e-8a57-4c1f-9d4e-2f6a7b8c9d0e";

function sample(field: Field): unknown {
  if (field.kind === "bigint") return "1";
  return field.kind === "uuid" ? SAMPLE_UUID : SAMPLES[field.type];
}

/** The README's typed-client example: a call of the newest version, a list when it serves a table. */
function clientExample(model: Model) {
  const version = [...model.versions].sort((a, b) => Number(b.slice(1)) - Number(a.slice(1)))[0]!;
  const table = model.tables.find((candidate) => candidate.versions.includes(version));
  const call = table
    ? [
        `const { data, error } = await api.GET("/${model.project}/${table.name}/${version}/list", {`,
        `  params: { query: { limit: 20, sort: ["-id"] } },`,
        `});`,
        `// data.data: the records in ${table.name}, typed; error: the failure envelope.`,
        `if (data) console.log(data.data);`,
        `else console.error(error.message);`,
      ]
    : [`const { data } = await api.GET("/${model.project}/${version}/openapi.json");`];
  return { version, call: call.join("\n") };
}

/** The context of `README.md.hbs`. */
export interface ReadmeContext {
  project: string;
  firstTable: string;
  /** A version that serves the first table, for the example of a scope pinned to a version. */
  firstTableVersion: string;
  /** The versions, as Markdown code. */
  versions: string;
  client: { version: string; call: string };
  deprecated: { version: string; since: string; sunset: string }[];
  /** The 410 message of each version with a sunset. */
  gone: { version: string; message: string }[];
  /** A batch of the first table's first version: a create, then a delete of what it created. */
  batch: { version: string; body: string };
  /** How deep `expand` nests, and how many referring records it embeds per record. */
  expandDepth: number;
  expandMany: number;
  tables: {
    name: string;
    versions: string;
    version: string;
    fields: string;
    /** The relations `expand` names in the table's first version, as Markdown code; none when it has none. */
    expand: string | undefined;
    /** The first of them, for the curl example. */
    expandExample: string | undefined;
    sampleId: string | number;
    sampleBody: string;
  }[];
  queries: {
    name: string;
    versions: string;
    version: string;
    params: string;
    columns: string | undefined;
    query: string;
  }[];
}

export const README = templatePath<ReadmeContext>("server/README.md.hbs");

/** The context of the generated server's README: how to run it and a curl example for every endpoint. */
export function readmeContext(model: Model): ReadmeContext {
  const expansionsOf = versionExpansions(model);
  const first = tableInVersion(model.tables[0]!, model.tables[0]!.versions[0]!);
  const requiredSample = (fields: Field[]) =>
    Object.fromEntries(fields.filter((field) => field.required).map((field) => [field.name, sample(field)]));
  return {
    batch: {
      version: first.version,
      body: JSON.stringify({
        operations: [
          { action: "create", table: first.name, data: requiredSample(first.fields) },
          { action: "delete", table: first.name, id: { $ref: "0.id" } },
        ],
      }),
    },
    expandDepth: MAX_EXPAND_DEPTH,
    expandMany: MAX_EXPANDED_MANY,
    project: model.project,
    firstTable: model.tables[0]!.name,
    firstTableVersion: model.tables[0]!.versions[0]!,
    versions: model.versions.map((version) => `\`${version}\``).join(", "),
    client: clientExample(model),
    deprecated: Object.entries(model.deprecated).map(([version, { since, sunset }]) => ({
      version,
      since: since ? ` since ${since}` : "",
      sunset: sunset ? `; from its sunset, ${sunset}, every request to it is answered 410 Gone` : "",
    })),
    gone: Object.entries(model.deprecated).flatMap(([version, { sunset }]) =>
      sunset ? [{ version, message: goneMessage(version, sunset) }] : [],
    ),
    tables: model.tables.map((table) => {
      // The examples use the table's first version, in its field names.
      const first = tableInVersion(table, table.versions[0]!);
      // A bigint id or reference travels as a string of digits: said where the fields are listed.
      const digits = ", a 64-bit integer as a string of digits";
      const fieldList = (fields: Field[]) =>
        [
          table.id === "bigint" ? `id (bigint${digits})` : "id",
          ...fields.map(
            (field) =>
              `${field.name} (${field.type}${field.kind === "bigint" ? digits : ""}${field.required ? ", required" : ""})`,
          ),
        ].join(", ");
      const related = expansionsOf(table, first.version).map((expansion) => expansion.name);
      return {
        name: table.name,
        versions: table.versions.join(", "),
        version: first.version,
        expand: related.length > 0 ? related.map((name) => `\`${name}\``).join(", ") : undefined,
        expandExample: related[0],
        fields: hasVersionedFields(table)
          ? table.versions
              .map((version) => `in ${version}: ${fieldList(tableInVersion(table, version).fields)}`)
              .join("; ")
          : fieldList(table.fields),
        sampleId: table.id === "uuid" ? SAMPLE_UUID : 1,
        sampleBody: JSON.stringify(requiredSample(first.fields)),
      };
    }),
    queries: model.queries.map((query) => ({
      name: query.name,
      versions: query.versions.join(", "),
      version: query.versions[0]!,
      params: query.params.map((param) => `${param.name} (${param.type})`).join(", "),
      // Each column as the server answers it (src/emit/queries.ts), or null for a value of no known type.
      columns: query.columns
        ?.map(({ name, kind }) => `${name} (${kind === undefined ? "as the database gives it" : COLUMN_KINDS[kind]})`)
        .join(", "),
      query:
        query.params.length > 0
          ? "?" +
            query.params
              .map(
                (param) =>
                  `${param.name}=${encodeURIComponent(String(param.kind === "uuid" ? SAMPLE_UUID : SAMPLES[param.type]))}`,
              )
              .join("&")
          : "",
    })),
  };
}

/** A query column's kind as the generated README names it. */
const COLUMN_KINDS: Record<ValueKind, string> = {
  float: "number",
  integer: "integer",
  uuid: "uuid",
  bigint: "64-bit integer as a string",
  text: "text",
  boolean: "boolean",
  datetime: "date-time",
};
