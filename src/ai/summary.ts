import { versionLabels, type RawFieldObject, type RawManifest } from "../manifest/schema.ts";
import { targetFor } from "../targets/index.ts";

/** A drafted manifest for a person to read: tables, fields and their types, relationships, queries. */
export function summary(manifest: RawManifest): string {
  const lines: string[] = [];
  const versions = versionLabels(manifest.versions);
  const database = targetFor(manifest.database ?? "sqlite").label;
  lines.push(
    `Project ${manifest.project}: ${database}, API ${versions.length === 1 ? "version" : "versions"} ${versions.join(", ")}`,
  );

  const tables = Object.entries(manifest.tables);
  lines.push("", `Tables (${tables.length})`);
  const relationships: string[] = [];
  for (const [name, table] of tables) {
    const notes = [
      ...(table.id === "uuid" || table.id === "bigint" ? [`${table.id} id`] : []),
      ...(table.versions ? [`versions ${table.versions.join(", ")}`] : []),
    ];
    lines.push(`  ${name}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`);
    const fields = Object.entries(table.fields).map(([fieldName, field]): [string, RawFieldObject] => [
      fieldName,
      typeof field === "string" ? { type: field } : field,
    ]);
    if (fields.length === 0) lines.push("    (no fields besides id)");
    const width = Math.max(...fields.map(([fieldName]) => fieldName.length));
    for (const [fieldName, field] of fields) {
      lines.push(`    ${fieldName.padEnd(width)}  ${describeField(field)}`);
      if (field.references !== undefined) {
        relationships.push(
          `  ${name}.${fieldName} → ${field.references}.id (on delete ${onDeleteText(field.onDelete)})`,
        );
      }
    }
  }

  lines.push("", `Relationships (${relationships.length})`);
  lines.push(...(relationships.length > 0 ? relationships : ["  none"]));

  const queries = Object.entries(manifest.queries ?? {});
  lines.push("", `Queries (${queries.length})`);
  if (queries.length === 0) lines.push("  none");
  for (const [name, query] of queries) {
    const params = Object.entries(query.params ?? {}).map(([param, type]) => `${param}: ${type}`);
    const versionNote = query.versions ? ` (versions ${query.versions.join(", ")})` : "";
    lines.push(`  ${name}(${params.join(", ")})${versionNote}`);
    for (const line of query.sql.trim().split("\n")) lines.push(`    ${line.trimEnd()}`);
  }
  return lines.join("\n");
}

function describeField(field: RawFieldObject): string {
  const head = field.references !== undefined ? `${field.type} → ${field.references}` : field.type;
  const options: string[] = [];
  if (field.required) options.push("required");
  if (field.unique) options.push("unique");
  if (field.integer) options.push("integer");
  if (field.maxLength !== undefined) options.push(`max ${field.maxLength} characters`);
  if (field.default !== undefined) {
    const literal = field.type === "DATETIME" && field.default === "now" ? "now" : JSON.stringify(field.default);
    options.push(`default ${literal}`);
  }
  if (field.references !== undefined) options.push(`on delete ${onDeleteText(field.onDelete)}`);
  return options.length > 0 ? `${head}, ${options.join(", ")}` : head;
}

function onDeleteText(onDelete: RawFieldObject["onDelete"]): string {
  return onDelete === "setNull" ? "set null" : (onDelete ?? "restrict");
}
