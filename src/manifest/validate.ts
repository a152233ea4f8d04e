import type { z } from "zod";
import { UserError } from "../errors.ts";
import { isDateTime, isEmail, isInt64, isPhone } from "../runtime/formats.ts";
import { checkablePart } from "./checkable.ts";
import type { ManifestSource, Path, Position } from "./load.ts";
import { pascalCase } from "./names.ts";
import {
  DEFAULT_MAX_LENGTH,
  FIELD_TYPES,
  IDENTIFIER,
  PROJECT_NAME,
  VERSION_LABEL,
  fieldObjectSchema,
  manifestSchema,
  querySchema,
  tableSchema,
  versionPolicySchema,
  versionRuleSchema,
  type FieldType,
  type RawFieldObject,
  type RawManifest,
} from "./schema.ts";
import { readOnlyProblem, readSql } from "./sql.ts";

export interface Problem {
  path: Path;
  message: string;
  /** Locate the problem at the name of the entry (`nick:`) rather than at its value. */
  atKey?: boolean;
}

/**
 * A problem as the user reads it (`file:line:column path: message`), and where it is: its place in
 * the file, and its path in the manifest with its message alone (the studio shows each at its field).
 */
export interface LocatedProblem extends Position {
  text: string;
  path?: Path;
  message?: string;
}

/** Every problem of a manifest, each located in its file; thrown as one user error. */
export class ManifestError extends UserError {
  /** Each problem as the user reads it. */
  readonly problems: readonly string[];

  constructor(
    readonly file: string,
    readonly located: readonly LocatedProblem[],
    /**
     * What is left to check of a manifest with problems (src/manifest/checkable.ts): the queries
     * whose tables are sound, which the CLI prepares to report their problems beside these, and
     * where in the file a path is written.
     */
    readonly unchecked?: { part: RawManifest; locate: ManifestSource["locate"] },
  ) {
    const texts = located.map(({ text }) => text);
    const count = texts.length === 1 ? "1 problem" : `${texts.length} problems`;
    super(`${file}: ${count}:\n${texts.map((problem) => `  ${problem}`).join("\n")}`);
    this.problems = texts;
  }
}

/** Problems in the order of their places in the file (those at one place keep their order). */
export function inFileOrder(problems: LocatedProblem[]): LocatedProblem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
}

const RESERVED_TABLE_NAMES = new Set(["prisma", "prisma_client"]);
const RESERVED_TABLE_PREFIXES = ["sqlite_", "pg_"];
const RESERVED_FIELD_NAMES = new Set(["id"]);
/** Names Prisma refuses for a model: its scalar types and its client. */
const RESERVED_MODEL_NAMES = new Set(
  "String Int Float Boolean DateTime Json Bytes Decimal BigInt Unsupported Prisma PrismaClient".split(" "),
);

/** Largest id and integer the generated servers accept (a 32-bit signed integer, Prisma's Int). */
const MAX_INTEGER = 2147483647;

const TEXT_TYPES: ReadonlySet<FieldType> = new Set(["TEXT", "EMAIL", "PHONE", "PARAGRAPH"]);

/** Type names people write for the seven types, and what to write instead. */
const TYPE_HINTS: Record<string, string> = {
  STRING: "TEXT",
  VARCHAR: "TEXT",
  CHAR: "TEXT",
  INT: "NUMBER with integer: true",
  INTEGER: "NUMBER with integer: true",
  BIGINT: "NUMBER with integer: true",
  FLOAT: "NUMBER",
  DOUBLE: "NUMBER",
  DECIMAL: "NUMBER",
  REAL: "NUMBER",
  BOOL: "BOOLEAN",
  DATE: "DATETIME",
  TIME: "DATETIME",
  TIMESTAMP: "DATETIME",
  LONGTEXT: "PARAGRAPH",
  TEXTAREA: "PARAGRAPH",
  MAIL: "EMAIL",
  TEL: "PHONE",
  TELEPHONE: "PHONE",
};

/** Checks the manifest's structure and every rule of CONTRACT.md §2; returns zod's parsed manifest. */
export function validateManifest(source: ManifestSource): RawManifest {
  const parsed =
    source.data === null || source.data === undefined
      ? undefined
      : manifestSchema.safeParse(source.data, { reportInput: true });
  const structure = structureProblems(source.data, parsed);
  // A value the schema already refused is not judged again by the rules.
  const refused = new Set(structure.map(({ path }) => formatPath(path)));
  const rules = ruleProblems(source.data).filter(({ path }) => !refused.has(formatPath(path)));
  const problems = [...structure, ...rules];
  if (problems.length > 0) {
    const located = inFileOrder(
      problems.map(({ path, message, atKey }) => {
        const { line, column } = source.locate(path, atKey);
        return {
          line,
          column,
          path,
          message,
          text: `${source.file}:${line}:${column} ${formatPath(path)}: ${message}`,
        };
      }),
    );
    const seen = new Set<string>();
    const distinct = located.filter(({ text }) => !seen.has(text) && seen.add(text));
    // What the CLI can still check: the custom queries whose tables these problems leave sound.
    const paths = problems.map(({ path }) => path);
    const part = checkablePart(source.data, paths);
    throw new ManifestError(source.file, distinct, part && { part, locate: source.locate });
  }
  return parsed!.data!;
}

export function formatPath(path: Path): string {
  return path.length === 0 ? "(manifest)" : path.join(".");
}

function structureProblems(data: unknown, result: ReturnType<typeof manifestSchema.safeParse> | undefined): Problem[] {
  if (data === null || data === undefined || !result)
    return [{ path: [], message: "is empty: a manifest needs at least project and tables" }];
  return result.success ? [] : result.error.issues.flatMap((issue) => issueProblems(issue, []));
}

type Issue = z.core.$ZodIssue;

function issueProblems(issue: Issue, prefix: Path): Problem[] {
  const path = [...prefix, ...(issue.path as Path)];
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return [{ path, message: "is required" }];
      if (issue.input === null) return [{ path, message: `is empty: it must be ${article(issue.expected)}` }];
      if (issue.expected === "number" && typeof issue.input === "number")
        return [{ path, message: `must be a finite number, not ${issue.input}` }];
      return [{ path, message: `must be ${article(issue.expected)}, not ${describe(issue.input)}` }];
    case "unrecognized_keys": {
      const known = knownKeys(path);
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, known), atKey: true }));
    }
    case "invalid_value":
      if (issue.input === undefined) return [{ path, message: "is required" }];
      if (isTypePosition(path)) {
        return [{ path, message: unknownTypeMessage(issue.input) }];
      }
      return [
        { path, message: `must be one of ${issue.values.map(String).join(", ")}, not ${JSON.stringify(issue.input)}` },
      ];
    case "invalid_union": {
      const input = issue.input;
      if (path.length === 5 && path[2] === "fields" && path[4] === "default") {
        if (typeof input === "number") return [{ path, message: `must be a finite number, not ${input}` }];
        return [{ path, message: `must be a string, a number, true or false, not ${describe(input)}` }];
      }
      if (path.length === 1 && path[0] === "versions") {
        // A list of labels, or a map of them: report against whichever form was written.
        if (Array.isArray(input)) return issue.errors[0]!.flatMap((inner) => issueProblems(inner, path));
        if (isObject(input)) return issue.errors[1]!.flatMap((inner) => issueProblems(inner, path));
        return [{ path, message: `must be a list of versions or a map of them, not ${describe(input)}` }];
      }
      if (path.length === 7 && path[2] === "fields" && path[4] === "inVersions" && path[6] === "default") {
        return [{ path, message: `must be a string, a number, true or false, not ${describe(input)}` }];
      }
      // A field is a type name or an object: report against whichever form was written.
      const branch = typeof input === "string" ? issue.errors[0] : issue.errors[1];
      if (branch && (typeof input === "string" || isObject(input)))
        return branch.flatMap((inner) => issueProblems(inner, path));
      if (input === null) return [{ path, message: "is empty: it must be a type name or an object with a type" }];
      return [{ path, message: `must be a type name or an object with a type, not ${describe(input)}` }];
    }
    default:
      return [{ path, message: issue.message }];
  }
}

/** Whether `path` holds a type name: a shorthand field, a field's `type`, a query parameter. */
function isTypePosition(path: Path): boolean {
  const [section, , group, , option] = path;
  if (section === "tables" && group === "fields") return path.length === 4 || (path.length === 5 && option === "type");
  return section === "queries" && group === "params" && path.length === 4;
}

/** The keys allowed in the object at `path`. */
function knownKeys(path: Path): string[] {
  const shape =
    path.length === 0
      ? manifestSchema.shape
      : path.length === 2 && path[0] === "tables"
        ? tableSchema.shape
        : path.length === 4 && path[0] === "tables" && path[2] === "fields"
          ? fieldObjectSchema.shape
          : path.length === 2 && path[0] === "queries"
            ? querySchema.shape
            : path.length === 2 && path[0] === "versions"
              ? versionPolicySchema.shape
              : path.length === 6 && path[2] === "fields" && path[4] === "inVersions"
                ? versionRuleSchema.shape
                : {};
  return Object.keys(shape);
}

function unknownKeyMessage(key: string, known: string[]): string {
  const suggestion = closest(key, known);
  if (suggestion) return `unknown option "${key}" (did you mean "${suggestion}"?)`;
  return known.length > 0 ? `unknown option "${key}" (expected one of ${known.join(", ")})` : `unknown option "${key}"`;
}

function unknownTypeMessage(input: unknown): string {
  const expected = `expected ${FIELD_TYPES.join(", ")}`;
  if (typeof input !== "string") return `must be a type name (${expected}), not ${describe(input)}`;
  const upper = input.toUpperCase();
  const hint = (FIELD_TYPES as readonly string[]).includes(upper) ? upper : TYPE_HINTS[upper];
  return hint
    ? `unknown type "${input}": did you mean ${hint}? (${expected})`
    : `unknown type "${input}" (${expected})`;
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
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return `number ${value}`;
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

/** The candidate within two edits of `word` (or equal but for case), if there is exactly one best. */
function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = candidate.toLowerCase() === word.toLowerCase() ? 0 : editDistance(word, candidate);
    if (distance < bestDistance && distance < Math.max(word.length, candidate.length)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The rules the schema cannot express; run on whatever parts of the data are well-formed. */
function ruleProblems(data: unknown): Problem[] {
  if (!isObject(data)) return [];
  const problems: Problem[] = [];
  const report: Report = (path, message, atKey) => problems.push({ path, message, ...(atKey && { atKey }) });

  if (typeof data.project === "string" && !PROJECT_NAME.test(data.project)) {
    report(
      ["project"],
      `"${data.project}" is not a valid project name: a lowercase letter, then lowercase letters, digits or dashes, 63 characters at most`,
    );
  }

  const versions =
    data.versions === undefined
      ? ["v1"]
      : isObject(data.versions)
        ? Object.keys(data.versions)
        : strings(data.versions);
  if (
    (Array.isArray(data.versions) && data.versions.length === 0) ||
    (isObject(data.versions) && versions.length === 0)
  )
    report(["versions"], "must list at least one version");
  if (isObject(data.versions)) checkVersionPolicies(data.versions, report);
  else checkVersionLabels(versions, ["versions"], report);
  const knownVersions = new Set(versions);

  const tableEntries = entries(data.tables);
  if (isObject(data.tables) && tableEntries.length === 0) report(["tables"], "must define at least one table");
  const tableNames = new Set(tableEntries.map(([name]) => name));
  const idKinds = new Map(
    tableEntries.map(([name, table]) => [
      name,
      isObject(table) && (table.id === "uuid" || table.id === "bigint") ? table.id : "number",
    ]),
  );
  const modelNames = new Map<string, string>();
  const renamedTables = new Map<string, string>();

  for (const [tableName, table] of tableEntries) {
    const tablePath = ["tables", tableName];
    const validName = checkIdentifier(tableName, tablePath, "table", report);
    const modelName = pascalCase(tableName);
    if (RESERVED_TABLE_NAMES.has(tableName)) {
      report(tablePath, `"${tableName}" is a reserved table name`, true);
    } else if (RESERVED_TABLE_PREFIXES.some((prefix) => tableName.startsWith(prefix))) {
      const prefix = RESERVED_TABLE_PREFIXES.find((candidate) => tableName.startsWith(candidate))!;
      report(
        tablePath,
        `"${tableName}" is a reserved table name: names starting with ${prefix} belong to the database`,
        true,
      );
    } else if (validName && RESERVED_MODEL_NAMES.has(modelName)) {
      report(
        tablePath,
        `"${tableName}" is a reserved table name: its Prisma model would be ${modelName}, a name Prisma keeps for itself`,
        true,
      );
    }
    const clash = modelNames.get(modelName);
    if (validName && clash)
      report(tablePath, `duplicate name: "${tableName}" and "${clash}" both become the model ${modelName}`, true);
    if (validName && !clash) modelNames.set(modelName, tableName);
    if (!isObject(table)) continue;

    if (table.id === "bigint" && data.database !== "postgresql")
      report([...tablePath, "id"], "bigint ids need database: postgresql; a SQLite table's id is number or uuid");
    if (table.versions !== undefined)
      checkSubsetVersions(table.versions, [...tablePath, "versions"], knownVersions, report);
    if (typeof table.renamedFrom === "string") {
      const renamedPath = [...tablePath, "renamedFrom"];
      const old = table.renamedFrom;
      if (checkIdentifier(old, renamedPath, "table", report)) {
        const earlier = renamedTables.get(old);
        if (old === tableName)
          report(renamedPath, `is the table's own name: leave renamedFrom out, or give the name it had before`);
        else if (tableNames.has(old))
          report(renamedPath, `table "${old}" still exists: a table can only be renamed from a name that is gone`);
        else if (earlier)
          report(renamedPath, `duplicate name: tables "${earlier}" and "${tableName}" are both renamed from "${old}"`);
        renamedTables.set(old, earlier ?? tableName);
      }
    }

    const tableVersions = table.versions === undefined ? versions : strings(table.versions);
    const fieldEntries = entries(table.fields);
    const fieldNames = new Set(fieldEntries.map(([name]) => name));
    const renamedFields = new Map<string, string>();
    for (const [fieldName, field] of fieldEntries) {
      const fieldPath = [...tablePath, "fields", fieldName];
      checkIdentifier(fieldName, fieldPath, "field", report);
      if (RESERVED_FIELD_NAMES.has(fieldName))
        report(fieldPath, `"${fieldName}" is a reserved field name: every table has an implicit id`, true);
      const spec = typeof field === "string" ? { type: field } : field;
      if (!isObject(spec)) continue;
      const context: FieldContext = {
        name: fieldName,
        path: fieldPath,
        siblings: fieldNames,
        renamed: renamedFields,
        tables: tableNames,
        idKinds,
      };
      checkField(spec as Partial<RawFieldObject>, context, report);
      checkFieldVersions(spec as Partial<RawFieldObject>, fieldPath, tableVersions, report);
    }
    checkApiNames(fieldEntries, tablePath, tableVersions, report);
    checkIndexes(table.indexes, [...tablePath, "indexes"], fieldNames, report);
  }

  checkRelationNames(tableEntries, report);

  const queryNames = new Map<string, string>();
  for (const [queryName, query] of entries(data.queries)) {
    const queryPath = ["queries", queryName];
    if (queryName === "batch")
      report(
        queryPath,
        `"batch" is a reserved query name: POST /<project>/<version>/batch runs writes in one transaction`,
        true,
      );
    else if (checkIdentifier(queryName, queryPath, "query", report)) {
      const identifier = pascalCase(queryName);
      const clash = queryNames.get(identifier);
      if (clash)
        report(
          queryPath,
          `duplicate name: "${queryName}" and "${clash}" both become ${identifier} in the generated code`,
          true,
        );
      else queryNames.set(identifier, queryName);
    }
    if (!isObject(query)) continue;
    if (query.versions !== undefined)
      checkSubsetVersions(query.versions, [...queryPath, "versions"], knownVersions, report);
    for (const [paramName] of entries(query.params)) {
      checkIdentifier(paramName, [...queryPath, "params", paramName], "parameter", report);
    }
    if (typeof query.sql === "string")
      checkQuerySql(query.sql, Object.keys(isObject(query.params) ? query.params : {}), queryPath, report);
  }
  return problems;
}

type Report = (path: Path, message: string, atKey?: boolean) => void;

/**
 * The relation names a manifest gives (`as:` on a reference field, its name in the referring
 * table's `expand`; `reverse:`, the referring records' name in the referenced table's): each must
 * be free on the table it names a relation of, neither one of its fields (in any version) nor
 * another relation's name there.
 */
function checkRelationNames(tableEntries: [string, unknown][], report: Report): void {
  const fieldsOf = new Map<string, Set<string>>();
  for (const [tableName, table] of tableEntries) {
    const names = new Set(["id"]);
    for (const [fieldName, field] of entries(isObject(table) ? table.fields : undefined)) {
      names.add(fieldName);
      if (isObject(field) && isObject(field.names))
        for (const name of strings(Object.values(field.names))) names.add(name);
    }
    fieldsOf.set(tableName, names);
  }
  const given = new Map<string, Map<string, string>>();
  for (const [tableName, table] of tableEntries) {
    for (const [fieldName, field] of entries(isObject(table) ? table.fields : undefined)) {
      if (!isObject(field) || typeof field.references !== "string") continue;
      for (const option of ["as", "reverse"] as const) {
        const name = field[option];
        if (typeof name !== "string" || !IDENTIFIER.test(name) || Object.hasOwn(Object.prototype, name)) continue;
        const on = option === "as" ? tableName : field.references;
        const fields = fieldsOf.get(on);
        if (!fields) continue;
        const path = ["tables", tableName, "fields", fieldName, option];
        const where = `${tableName}.${fieldName}`;
        const earlier = given.get(on)?.get(name);
        if (fields.has(name))
          report(path, `"${name}" is a field of ${on}: a relation of ${on} needs a name of its own`);
        else if (earlier !== undefined)
          report(path, `duplicate name: ${earlier} and ${where} both name a relation of ${on} "${name}"`);
        else given.set(on, (given.get(on) ?? new Map<string, string>()).set(name, where));
      }
    }
  }
}

/** A composite index names at least two of the table's fields (or id), each once; no two indexes are the same. */
function checkIndexes(value: unknown, path: Path, fields: Set<string>, report: Report): void {
  if (!Array.isArray(value)) return;
  const seen = new Set<string>();
  value.forEach((index: unknown, position) => {
    if (!Array.isArray(index)) return;
    const at = [...path, position];
    const names = strings(index);
    if (names.length < 2) report(at, "a composite index names at least two fields (index: true indexes one)");
    names.forEach((name, place) => {
      if (name !== "id" && !fields.has(name)) {
        const suggestion = closest(name, fields);
        report(
          [...at, place],
          `"${name}" is not a field of this table${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
        );
      } else if (names.indexOf(name) !== place) report([...at, place], `"${name}" is named twice in the index`);
    });
    const key = names.join(",");
    if (seen.has(key)) report(at, `duplicate index: [${names.join(", ")}] is listed twice`);
    seen.add(key);
  });
}

/** Reports a name that is not an identifier; returns whether it is one. */
function checkIdentifier(name: string, path: Path, what: string, report: Report): boolean {
  const atKey = path.at(-1) === name;
  if (IDENTIFIER.test(name)) {
    // A name every JavaScript object has (the only one a lowercase identifier can spell): the server
    // looks names up in objects, and would find the object's own constructor under it.
    if (!Object.hasOwn(Object.prototype, name)) return true;
    report(path, `"${name}" is a reserved ${what} name: every JavaScript object has a ${name}`, atKey);
    return false;
  }
  report(
    path,
    `"${name}" is not a valid ${what} name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most`,
    atKey,
  );
  return false;
}

function checkVersionLabels(versions: string[], path: Path, report: Report): void {
  const seen = new Set<string>();
  versions.forEach((label, index) => {
    if (!VERSION_LABEL.test(label))
      report([...path, index], `"${label}" is not a version label: "v" followed by a number, like v1`);
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

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date written YYYY-MM-DD. */
function isDate(value: unknown): value is string {
  return (
    typeof value === "string" && DATE.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
  );
}

/** The map form of `versions`: labels, and for each whether it is deprecated and when it ends. */
function checkVersionPolicies(policies: Record<string, unknown>, report: Report): void {
  for (const [label, policy] of Object.entries(policies)) {
    const path = ["versions", label];
    if (!VERSION_LABEL.test(label))
      report(path, `"${label}" is not a version label: "v" followed by a number, like v1`, true);
    if (!isObject(policy)) continue;
    const { deprecated, sunset } = policy;
    if (typeof deprecated === "string" && !isDate(deprecated))
      report([...path, "deprecated"], `must be true or a date like 2026-12-31, not ${describe(deprecated)}`);
    if (sunset !== undefined) {
      if (!isDate(sunset)) report([...path, "sunset"], `must be a date like 2027-06-30, not ${describe(sunset)}`);
      else if (!deprecated) report([...path, "sunset"], "needs deprecated: a version that ends is deprecated first");
      else if (isDate(deprecated) && sunset < deprecated)
        // RFC 9745 §4: the Sunset a version's answers carry must not be earlier than their Deprecation.
        report(
          [...path, "sunset"],
          `${sunset} is earlier than the version's deprecation (${deprecated}): a version is deprecated before it ends (RFC 9745)`,
        );
    }
  }
}

/** Versions of a field: which of its table's versions have it, its name in each, what each keeps. */
function checkFieldVersions(field: Partial<RawFieldObject>, path: Path, tableVersions: string[], report: Report): void {
  const known = new Set(tableVersions);
  if (field.versions !== undefined) {
    const versionsPath = [...path, "versions"];
    if (Array.isArray(field.versions) && field.versions.length === 0)
      report(versionsPath, "must list at least one version");
    checkVersionLabels(strings(field.versions), versionsPath, report);
    strings(field.versions).forEach((label, index) => {
      if (VERSION_LABEL.test(label) && !known.has(label))
        report([...versionsPath, index], `${label} is not one of the table's versions (${tableVersions.join(", ")})`);
    });
  }
  const exposed = new Set(field.versions === undefined ? tableVersions : strings(field.versions));
  const notExposed = (label: string) =>
    known.has(label)
      ? `the field is not in ${label} (its versions: ${[...exposed].join(", ")})`
      : `${label} is not one of the table's versions (${tableVersions.join(", ")})`;
  for (const [label, name] of entries(field.names)) {
    const at = [...path, "names", label];
    if (!exposed.has(label)) report(at, notExposed(label), true);
    else if (typeof name === "string") checkIdentifier(name, at, "field", report);
  }
  for (const [label, rule] of entries(field.inVersions)) {
    const at = [...path, "inVersions", label];
    if (!exposed.has(label)) {
      report(at, notExposed(label), true);
      continue;
    }
    if (!isObject(rule) || !field.type || !FIELD_TYPES.includes(field.type)) continue;
    if (rule.default === "now" && field.type === "DATETIME")
      report([...at, "default"], 'a version keeps a value: "now" is only for the field\'s own default');
    else if (rule.default !== undefined && field.references === undefined) {
      const problem = defaultProblem(field.type, rule.default, field.maxLength, field.integer === true);
      if (problem) report([...at, "default"], problem);
    }
    if (rule.required === false && field.required && field.default === undefined && rule.default === undefined)
      report(
        [...at, "required"],
        `a create in ${label} may leave the field out, but it is stored required: give it a default (here or on the field)`,
      );
  }
  const missing = tableVersions.filter((label) => !exposed.has(label));
  if (field.required && field.default === undefined && missing.length > 0)
    report(
      path,
      `is required but not in ${missing.join(", ")}: a create there cannot give it, so it needs a default`,
      true,
    );
}

/** In each version, the fields' API names are distinct and none is id. */
function checkApiNames(fields: [string, unknown][], tablePath: Path, tableVersions: string[], report: Report): void {
  for (const label of tableVersions) {
    const taken = new Map<string, string>([["id", "id"]]);
    for (const [name, field] of fields) {
      if (isObject(field) && field.versions !== undefined && !strings(field.versions).includes(label)) continue;
      const renamed = isObject(field) && isObject(field.names) ? field.names[label] : undefined;
      const apiName = typeof renamed === "string" ? renamed : name;
      const other = taken.get(apiName);
      if (other !== undefined && other !== name)
        report(
          [...tablePath, "fields", name, ...(typeof renamed === "string" ? ["names", label] : [])],
          `duplicate name in ${label}: "${apiName}" is also ${other === "id" ? "the id" : `the field "${other}"`}`,
        );
      else taken.set(apiName, name);
    }
  }
}

interface FieldContext {
  name: string;
  path: Path;
  /** The names of the fields of the same table. */
  siblings: Set<string>;
  /** Old name → field renamed from it, in the same table so far. */
  renamed: Map<string, string>;
  tables: Set<string>;
  idKinds: Map<string, string>;
}

function checkField(field: Partial<RawFieldObject>, context: FieldContext, report: Report): void {
  const { path } = context;
  const type = field.type;
  if (!type || !FIELD_TYPES.includes(type)) return;
  const isText = TEXT_TYPES.has(type);

  let maxLengthValid = true;
  if (field.maxLength !== undefined) {
    maxLengthValid = false;
    if (!isText) report([...path, "maxLength"], `applies only to TEXT, EMAIL, PHONE and PARAGRAPH fields, not ${type}`);
    else if (!Number.isInteger(field.maxLength) || field.maxLength < 1)
      report([...path, "maxLength"], "must be a whole number of at least 1");
    else maxLengthValid = true;
  }
  if (field.integer !== undefined && type !== "NUMBER")
    report([...path, "integer"], `applies only to NUMBER fields, not ${type}`);

  let referenced: string | undefined;
  if (typeof field.references === "string") {
    if (type !== "NUMBER") report([...path, "references"], `a reference must be a NUMBER field, not ${type}`);
    else if (!context.tables.has(field.references)) {
      const suggestion = closest(field.references, context.tables);
      report(
        [...path, "references"],
        `refers to a table that does not exist: "${field.references}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}`,
      );
    } else referenced = field.references;
  }
  if (field.onDelete !== undefined) {
    if (field.references === undefined) report([...path, "onDelete"], "applies only to a field with references");
    else if (field.onDelete === "setNull" && field.required)
      report([...path, "onDelete"], "setNull needs an optional field, but this one is required");
  }
  for (const option of ["as", "reverse"] as const) {
    const name = field[option];
    if (name === undefined) continue;
    if (field.references === undefined) report([...path, option], "applies only to a field with references");
    else if (typeof name === "string") checkIdentifier(name, [...path, option], "relation", report);
  }
  if (typeof field.renamedFrom === "string") {
    const renamedPath = [...path, "renamedFrom"];
    const old = field.renamedFrom;
    if (checkIdentifier(old, renamedPath, "field", report)) {
      const earlier = context.renamed.get(old);
      if (old === context.name)
        report(renamedPath, "is the field's own name: leave renamedFrom out, or give the name it had before");
      else if (context.siblings.has(old))
        report(renamedPath, `field "${old}" still exists: a field can only be renamed from a name that is gone`);
      else if (earlier)
        report(renamedPath, `duplicate name: fields "${earlier}" and "${context.name}" are both renamed from "${old}"`);
      context.renamed.set(old, earlier ?? context.name);
    }
  }
  if (field.default !== undefined && (field.references === undefined || referenced !== undefined)) {
    const problem =
      referenced !== undefined
        ? referenceDefaultProblem(field.default, referenced, context.idKinds.get(referenced))
        : defaultProblem(type, field.default, maxLengthValid ? field.maxLength : undefined, field.integer === true);
    if (problem) report([...path, "default"], problem);
    else if (field.required && typeof field.default === "string" && field.default === "" && isText) {
      report([...path, "default"], "must not be empty: a required field refuses the empty string");
    }
  }
  if (field.example !== undefined && (field.references === undefined || referenced !== undefined)) {
    const problem =
      referenced !== undefined
        ? referenceDefaultProblem(field.example, referenced, context.idKinds.get(referenced))
        : type === "DATETIME"
          ? typeof field.example === "string" && isDateTime(field.example)
            ? undefined
            : `must be a date-time with a time zone, like 2024-01-31T12:00:00Z, not ${describe(field.example)}`
          : defaultProblem(type, field.example, maxLengthValid ? field.maxLength : undefined, field.integer === true);
    if (problem) report([...path, "example"], problem);
    else if (field.example === "" && isText && field.required) {
      report([...path, "example"], "must not be empty: a required field refuses the empty string");
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function referenceDefaultProblem(value: unknown, table: string, idKind: string | undefined): string | undefined {
  if (idKind === "bigint") {
    if (typeof value === "string" && isInt64(value)) return undefined;
    return `must be a 64-bit integer as a string of digits for a reference to ${table} (its id is a bigint), not ${describe(value)}`;
  }
  if (idKind === "uuid") {
    if (typeof value === "string" && UUID.test(value)) return undefined;
    return `must be a lowercase UUID for a reference to ${table} (its id is a uuid), not ${describe(value)}`;
  }
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_INTEGER) return undefined;
  return `must be the id of a record in ${table}, a whole number from 1 to ${MAX_INTEGER}, not ${describe(value)}`;
}

function defaultProblem(
  type: FieldType,
  value: unknown,
  maxLength: number | undefined,
  integer: boolean,
): string | undefined {
  if (value === "now" && type !== "DATETIME" && !TEXT_TYPES.has(type))
    return `"now" is only for DATETIME fields, not ${type}`;
  switch (type) {
    case "NUMBER":
      if (typeof value !== "number") return `must be a number for a NUMBER field, not ${describe(value)}`;
      if (integer && !Number.isInteger(value)) return `must be a whole number for an integer field, not ${value}`;
      if (integer && (value < -MAX_INTEGER - 1 || value > MAX_INTEGER)) {
        return `is out of range for an integer field (${-MAX_INTEGER - 1} to ${MAX_INTEGER})`;
      }
      return undefined;
    case "BOOLEAN":
      return typeof value === "boolean"
        ? undefined
        : `must be true or false for a BOOLEAN field, not ${describe(value)}`;
    case "DATETIME":
      if (value === "now" || (typeof value === "string" && isDateTime(value))) return undefined;
      return `must be "now" or a date-time with a time zone, like 2024-01-31T12:00:00Z, not ${describe(value)}`;
    default: {
      if (typeof value !== "string") return `must be a string for a ${type} field, not ${describe(value)}`;
      const limit = maxLength ?? DEFAULT_MAX_LENGTH[type];
      if (limit !== undefined && characterLength(value) > limit) {
        return `is ${characterLength(value)} characters long, more than the field's maxLength of ${limit}`;
      }
      if (type === "EMAIL" && !isEmail(value)) return `must be a valid e-mail address, not ${JSON.stringify(value)}`;
      if (type === "PHONE" && !isPhone(value))
        return `must be a valid phone number (7 to 15 digits), not ${JSON.stringify(value)}`;
      return undefined;
    }
  }
}

function checkQuerySql(sql: string, declared: string[], path: Path, report: Report): void {
  const reading = readSql(sql);
  const problem = readOnlyProblem(reading);
  if (problem) report([...path, "sql"], `${problem}: a query must be one read-only SELECT or WITH statement`);
  for (const name of declared) {
    if (!reading.params.includes(name))
      report([...path, "params", name], `is declared but the SQL does not use :${name}`, true);
  }
  for (const name of reading.params) {
    if (!declared.includes(name)) report([...path, "sql"], `uses :${name}, which is not declared in params`);
  }
}

/** Length in characters (Unicode code points), as CONTRACT.md counts maxLength. */
function characterLength(value: string): number {
  return [...value].length;
}
