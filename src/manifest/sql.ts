/**
 * A small lexical reading of a custom query's SQL: enough to find its `:name` parameters and to
 * tell whether it is one read-only statement, without being fooled by strings, quoted names,
 * comments, PostgreSQL `::` casts or dollar-quoted strings.
 */
export interface SqlReading {
  /** Parameter names in order of first use. */
  params: string[];
  /** Where each `:name` stands in the text, in order: `start` is the colon, `end` after the name. */
  paramSpans: { name: string; start: number; end: number }[];
  /**
   * Upper-cased bare words outside strings, quoted names and comments, except the names after
   * a `.` (`p.set` is a column, not the keyword SET).
   */
  keywords: string[];
  /** Number of statements (text separated by `;`, ignoring empty ones). */
  statements: number;
  /** Every name the SQL writes, bare (after a `.` too) or quoted with `"` or `` ` ``, lower-cased. */
  names: string[];
}

const WRITE_KEYWORDS = new Set(
  (
    "INSERT UPDATE DELETE MERGE UPSERT CREATE DROP ALTER TRUNCATE ATTACH DETACH PRAGMA VACUUM REINDEX " +
    "GRANT REVOKE COPY CALL DO LOCK SET INTO"
  ).split(" "),
);

export function readSql(sql: string): SqlReading {
  const params: string[] = [];
  const paramSpans: SqlReading["paramSpans"] = [];
  const keywords: string[] = [];
  const names: string[] = [];
  let statements = 0;
  let statementHasContent = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      i = indexAfter(sql, "\n", i + 2);
    } else if (c === "/" && next === "*") {
      i = indexAfter(sql, "*/", i + 2);
    } else if (c === "'" || c === '"' || c === "`") {
      const end = endOfQuoted(sql, c, i + 1);
      if (c !== "'")
        names.push(
          sql
            .slice(i + 1, end - 1)
            .replaceAll(c + c, c)
            .toLowerCase(),
        );
      i = end;
      statementHasContent = true;
    } else if (c === "$" && DOLLAR_QUOTE.test(sql.slice(i))) {
      const tag = DOLLAR_QUOTE.exec(sql.slice(i))![0];
      i = indexAfter(sql, tag, i + tag.length);
      statementHasContent = true;
    } else if (c === ";") {
      if (statementHasContent) statements++;
      statementHasContent = false;
      i++;
    } else if (c === ":" && next === ":") {
      i += 2;
    } else if (c === ":" && next !== undefined && /[A-Za-z_]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))![0];
      if (!params.includes(name)) params.push(name);
      paramSpans.push({ name, start: i, end: i + 1 + name.length });
      statementHasContent = true;
      i += 1 + name.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))![0];
      if (!/\.\s*$/.test(sql.slice(Math.max(0, i - 8), i))) keywords.push(word.toUpperCase());
      names.push(word.toLowerCase());
      statementHasContent = true;
      i += word.length;
    } else {
      if (!/\s/.test(c)) statementHasContent = true;
      i++;
    }
  }
  if (statementHasContent) statements++;
  return { params, paramSpans, keywords, statements, names };
}

/** The SQL with each `:name` replaced by PostgreSQL's `$n`, n being the name's place in `order`. */
export function positionalSql(sql: string, order: string[]): string {
  let result = "";
  let last = 0;
  for (const { name, start, end } of readSql(sql).paramSpans) {
    result += `${sql.slice(last, start)}$${order.indexOf(name) + 1}`;
    last = end;
  }
  return result + sql.slice(last);
}

/** PostgreSQL's dollar quote opening a string: `$$` or `$tag$`. */
const DOLLAR_QUOTE = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Why the SQL is not a single read-only SELECT/WITH statement ("holds 2 statements", "starts with
 * DELETE", "writes: it uses INTO"), or undefined when it is.
 */
export function readOnlyProblem(reading: SqlReading): string | undefined {
  if (reading.statements === 0) return "is empty";
  if (reading.statements > 1) return `holds ${reading.statements} statements`;
  const first = reading.keywords[0];
  if (first === undefined) return "holds no SQL keyword";
  if (first !== "SELECT" && first !== "WITH") return `starts with ${first}`;
  const write = reading.keywords.find((word) => WRITE_KEYWORDS.has(word));
  if (write) return `writes: it uses ${write}`;
  return undefined;
}

function indexAfter(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from);
  return at === -1 ? text.length : at + end.length;
}

function endOfQuoted(text: string, quote: string, from: number): number {
  let i = from;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}
