import type { z } from "zod";
import { UserError } from "../errors.ts";
import { characterLength, isDateTime, isEmail, isPhone } from "./formats.ts";
import type { ManifestSource, Path } from "./load.ts";
import {
  FIELD_TYPES,
  IDENTIFIER,
  PROJECT_NAME,
  VERSION_LABEL,
  manifestSchema,
  type FieldType,
  type RawFieldObject,
  type RawManifest,
} from "./schema.ts";
import { readOnlyProblem, readSql } from "./sql.ts";

export interface Problem {
  path: Path;
  message: string;
}

/** Every problem of a manifest, each located in its file; thrown as one user error. */
export class ManifestError extends UserError {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
    super(`${file}: ${count}:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
}

export const RESERVED_TABLE_NAMES = new Set(["prisma", "prisma_client"]);
export const RESERVED_TABLE_PREFIXES = ["sqlite_", "pg_"];
export const RESERVED_FIELD_NAMES = new Set(["id"]);

const TEXT_TYPES: ReadonlySet<FieldType> = new Set(["TEXT", "EMAIL", "PHONE", "PARAGRAPH"]);

/** Checks the manifest's structure and every rule of CONTRACT.md §2; returns it typed. */
export function validateManifest(source: ManifestSource): RawManifest {
  const problems = [...structureProblems(source.data), ...ruleProblems(source.data)];
  if (problems.length > 0) {
    const located = problems.map(({ path, message }) => {
      const { line, column } = source.locate(path);
      return `${source.file}:${line}:${column} ${formatPath(path)}: ${message}`;
    });
    throw new ManifestError(source.file, [...new Set(located)]);
  }
  return source.data as RawManifest;
}

export function formatPath(path: Path): string {
  return path.length === 0 ? "(manifest)" : path.join(".");
}

function structureProblems(data: unknown): Problem[] {
  const result = manifestSchema.safeParse(data, { reportInput: true });
  return result.success ? [] : result.error.issues.flatMap((issue) => issueProblems(issue, []));
}

type Issue = z.core.$ZodIssue;

function issueProblems(issue: Issue, prefix: Path): Problem[] {
  const path = [...prefix, ...(issue.path as Path)];
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return [{ path, message: "is required" }];
      return [{ path, message: `must be ${article(issue.expected)}, not ${describe(issue.input)}` }];
    case "unrecognized_keys":
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown option "${key}"` }));
    case "invalid_value":
      if (path.at(-1) === "type" || path.at(-2) === "params" || path.at(-2) === "fields") {
        return [{ path, message: `unknown type ${JSON.stringify(issue.input)} (expected ${FIELD_TYPES.join(", ")})` }];
      }
      return [{ path, message: `must be one of ${issue.values.map(String).join(", ")}, not ${JSON.stringify(issue.input)}` }];
    case "invalid_union": {
      // A field is a type name or an object: report against whichever form was written.
      const input = issue.input;
      const branch = typeof input === "string" ? issue.errors[0] : issue.errors[1];
      if (branch && (typeof input === "string" || isObject(input))) return branch.flatMap((inner) => issueProblems(inner, path));
      return [{ path, message: `must be a type name or an object, not ${describe(input)}` }];
    }
    default:
      return [{ path, message: issue.message }];
  }
}

function article(expected: string): string {
  const names: Record<string, string> = {
    object: "an object",
    record: "an object",
    array: "a list",
    string: "a string",
    number: "a number",
    boolean: "true or false",
  };
  return names[expected] ?? expected;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function entries(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The rules the schema cannot express; run on whatever parts of the data are well-formed. */
function ruleProblems(data: unknown): Problem[] {
  if (!isObject(data)) return [];
  const problems: Problem[] = [];
  const report = (path: Path, message: string) => problems.push({ path, message });

  if (typeof data.project === "string" && !PROJECT_NAME.test(data.project)) {
    report(["project"], `"${data.project}" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`);
  }

  const versions = data.versions === undefined ? ["v1"] : strings(data.versions);
  if (Array.isArray(data.versions) && data.versions.length === 0) report(["versions"], "must list at least one version");
  checkVersionLabels(versions, ["versions"], report);
  const knownVersions = new Set(versions);

  const tableEntries = entries(data.tables);
  if (isObject(data.tables) && tableEntries.length === 0) report(["tables"], "must define at least one table");
  const tableNames = new Set(tableEntries.map(([name]) => name));
  const modelNames = new Map<string, string>();

  for (const [tableName, table] of tableEntries) {
    const tablePath = ["tables", tableName];
    checkIdentifier(tableName, tablePath, "table", report);
    if (RESERVED_TABLE_NAMES.has(tableName) || RESERVED_TABLE_PREFIXES.some((prefix) => tableName.startsWith(prefix))) {
      report(tablePath, `"${tableName}" is a reserved table name`);
    }
    const modelName = pascalCase(tableName);
    const clash = modelNames.get(modelName);
    if (clash) report(tablePath, `duplicate name: "${tableName}" and "${clash}" both become the model ${modelName}`);
    modelNames.set(modelName, tableName);
    if (!isObject(table)) continue;

    if (table.versions !== undefined) checkSubsetVersions(table.versions, [...tablePath, "versions"], knownVersions, report);
    if (typeof table.renamedFrom === "string") {
      checkIdentifier(table.renamedFrom, [...tablePath, "renamedFrom"], "table", report);
      if (tableNames.has(table.renamedFrom)) {
        report([...tablePath, "renamedFrom"], `duplicate name: table "${table.renamedFrom}" still exists`);
      }
    }

    const fieldEntries = entries(table.fields);
    const fieldNames = new Set(fieldEntries.map(([name]) => name));
    for (const [fieldName, field] of fieldEntries) {
      const fieldPath = [...tablePath, "fields", fieldName];
      checkIdentifier(fieldName, fieldPath, "field", report);
      if (RESERVED_FIELD_NAMES.has(fieldName)) report(fieldPath, `"${fieldName}" is reserved: every table has an implicit id`);
      const spec = typeof field === "string" ? { type: field } : field;
      if (isObject(spec)) checkField(spec as Partial<RawFieldObject>, fieldPath, fieldNames, tableNames, report);
    }
  }

  for (const [queryName, query] of entries(data.queries)) {
    const queryPath = ["queries", queryName];
    checkIdentifier(queryName, queryPath, "query", report);
    if (!isObject(query)) continue;
    if (query.versions !== undefined) checkSubsetVersions(query.versions, [...queryPath, "versions"], knownVersions, report);
    for (const [paramName] of entries(query.params)) {
      checkIdentifier(paramName, [...queryPath, "params", paramName], "parameter", report);
    }
    if (typeof query.sql === "string") checkQuerySql(query.sql, Object.keys(isObject(query.params) ? query.params : {}), queryPath, report);
  }
  return problems;
}

type Report = (path: Path, message: string) => void;

function checkIdentifier(name: string, path: Path, what: string, report: Report): void {
  if (!IDENTIFIER.test(name)) {
    report(path, `"${name}" is not a valid ${what} name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most`);
  }
}

function checkVersionLabels(versions: string[], path: Path, report: Report): void {
  const seen = new Set<string>();
  versions.forEach((label, index) => {
    if (!VERSION_LABEL.test(label)) report([...path, index], `"${label}" is not a version label: "v" followed by a number, like v1`);
    else if (seen.has(label)) report([...path, index], `duplicate version "${label}"`);
    seen.add(label);
  });
}

function checkSubsetVersions(value: unknown, path: Path, known: Set<string>, report: Report): void {
  const versions = strings(value);
  if (Array.isArray(value) && value.length === 0) report(path, "must list at least one version");
  checkVersionLabels(versions, path, report);
  versions.forEach((label, index) => {
    if (VERSION_LABEL.test(label) && !known.has(label)) {
      report([...path, index], `${label} is not one of the project's versions (${[...known].join(", ")})`);
    }
  });
}

function checkField(
  field: Partial<RawFieldObject>,
  path: Path,
  siblings: Set<string>,
  tables: Set<string>,
  report: Report,
): void {
  const type = field.type;
  if (!type || !FIELD_TYPES.includes(type)) return;
  const isText = TEXT_TYPES.has(type);

  if (field.maxLength !== undefined) {
    if (!isText) report([...path, "maxLength"], `applies only to TEXT, EMAIL, PHONE and PARAGRAPH fields, not ${type}`);
    else if (!Number.isInteger(field.maxLength) || field.maxLength < 1) report([...path, "maxLength"], "must be a whole number of at least 1");
  }
  if (field.integer !== undefined && type !== "NUMBER") report([...path, "integer"], `applies only to NUMBER fields, not ${type}`);

  if (field.references !== undefined) {
    if (type !== "NUMBER") report([...path, "references"], `a reference must be a NUMBER field, not ${type}`);
    else if (!tables.has(field.references)) report([...path, "references"], `refers to a table that does not exist: "${field.references}"`);
  }
  if (field.onDelete !== undefined) {
    if (field.references === undefined) report([...path, "onDelete"], "applies only to a field with references");
    else if (field.onDelete === "setNull" && field.required) report([...path, "onDelete"], "setNull needs an optional field, but this one is required");
  }
  if (typeof field.renamedFrom === "string") {
    checkIdentifier(field.renamedFrom, [...path, "renamedFrom"], "field", report);
    if (siblings.has(field.renamedFrom)) report([...path, "renamedFrom"], `duplicate name: field "${field.renamedFrom}" still exists`);
  }
  if (field.default !== undefined) {
    const problem = defaultProblem(type, field.default, field.maxLength, field.integer === true || field.references !== undefined);
    if (problem) report([...path, "default"], problem);
  }
}

function defaultProblem(type: FieldType, value: string | number | boolean, maxLength: number | undefined, integer: boolean): string | undefined {
  switch (type) {
    case "NUMBER":
      if (typeof value !== "number") return `must be a number for a NUMBER field, not ${describe(value)}`;
      if (integer && !Number.isInteger(value)) return "must be a whole number for an integer field";
      return undefined;
    case "BOOLEAN":
      return typeof value === "boolean" ? undefined : `must be true or false for a BOOLEAN field, not ${describe(value)}`;
    case "DATETIME":
      if (value === "now" || (typeof value === "string" && isDateTime(value))) return undefined;
      return `must be "now" or a date-time with a time zone, like 2024-01-31T12:00:00Z, not ${describe(value)}`;
    default: {
      if (typeof value !== "string") return `must be a string for a ${type} field, not ${describe(value)}`;
      const limit = maxLength ?? { TEXT: 255, EMAIL: 254, PHONE: 32 }[type as string];
      if (limit !== undefined && characterLength(value) > limit) return `is longer than the field's maxLength (${limit})`;
      if (type === "EMAIL" && !isEmail(value)) return "must be a valid e-mail address";
      if (type === "PHONE" && !isPhone(value)) return "must be a valid phone number";
      return undefined;
    }
  }
}

function checkQuerySql(sql: string, declared: string[], path: Path, report: Report): void {
  const reading = readSql(sql);
  const problem = readOnlyProblem(reading);
  if (problem) report([...path, "sql"], `${problem}: a query must be one read-only SELECT or WITH statement`);
  for (const name of declared) {
    if (!reading.params.includes(name)) report([...path, "params", name], `is declared but the SQL does not use :${name}`);
  }
  for (const name of reading.params) {
    if (!declared.includes(name)) report([...path, "sql"], `uses :${name}, which params does not declare`);
  }
}

export function pascalCase(name: string): string {
  return name
    .split(/[_-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}
