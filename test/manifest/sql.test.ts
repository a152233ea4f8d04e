import { describe, expect, it } from "vitest";
import { readOnlyProblem, readSql } from "../../src/manifest/sql.ts";

const problemOf = (sql: string) => readOnlyProblem(readSql(sql));

describe("readSql", () => {
  it("finds parameters in order of first use, once each", () => {
    expect(readSql("SELECT * FROM t WHERE a = :b AND c = :a OR d = :b").params).toEqual(["b", "a"]);
  });

  it("reads parameter names with digits and underscores, stopping at other characters", () => {
    expect(readSql("SELECT :user_id2,:x+:y_ FROM t").params).toEqual(["user_id2", "x", "y_"]);
  });

  it("does not read a PostgreSQL cast as a parameter", () => {
    expect(readSql("SELECT a::int, b :: text, c::timestamptz FROM t WHERE d = :d").params).toEqual(["d"]);
  });

  it("ignores a colon followed by a digit or a space (array slices, times)", () => {
    expect(readSql("SELECT arr[1:2], a : b FROM t").params).toEqual([]);
  });

  it("ignores parameters inside strings, quoted names and comments", () => {
    const sql = [
      "SELECT ':a' AS s, 'it''s :b' AS t, \"col:c\", `d:e`",
      "FROM t -- WHERE x = :f",
      "/* :g",
      "   :h */ WHERE y = :real",
    ].join("\n");
    expect(readSql(sql).params).toEqual(["real"]);
  });

  it("ignores parameters inside dollar-quoted strings", () => {
    expect(readSql("SELECT $$ :a $$, $tag$ :b; $tag$ FROM t WHERE c = :c").params).toEqual(["c"]);
    expect(readSql("SELECT $$ :a $$, $tag$ :b; $tag$ FROM t WHERE c = :c").statements).toBe(1);
  });

  it("lists the bare words, upper-cased, outside strings and comments", () => {
    expect(readSql("select a from t where b = 'delete' -- update\n").keywords).toEqual([
      "SELECT",
      "A",
      "FROM",
      "T",
      "WHERE",
      "B",
    ]);
  });

  it("does not list the names after a dot as keywords", () => {
    expect(readSql("SELECT c.set, c. lock FROM calls c").keywords).toEqual(["SELECT", "C", "C", "FROM", "CALLS", "C"]);
  });

  it("counts statements separated by semicolons, ignoring empty ones", () => {
    expect(readSql("SELECT 1").statements).toBe(1);
    expect(readSql("SELECT 1;").statements).toBe(1);
    expect(readSql("SELECT 1; ;; -- done\n").statements).toBe(1);
    expect(readSql("SELECT 1; SELECT 2").statements).toBe(2);
    expect(readSql("SELECT ';' AS a, \";\" FROM t /* ; */").statements).toBe(1);
    expect(readSql("").statements).toBe(0);
    expect(readSql("  -- only a comment\n /* and another */ ").statements).toBe(0);
  });

  it("keeps reading to the end of an unterminated string or comment", () => {
    expect(readSql("SELECT 'open :a; SELECT 2").statements).toBe(1);
    expect(readSql("SELECT 1 /* open :a; SELECT 2").params).toEqual([]);
  });
});

describe("readOnlyProblem", () => {
  it("accepts one SELECT or WITH statement", () => {
    expect(problemOf("SELECT id FROM t")).toBeUndefined();
    expect(problemOf("  select id from t;  ")).toBeUndefined();
    expect(problemOf("WITH x AS (SELECT id FROM t) SELECT * FROM x")).toBeUndefined();
    expect(problemOf("-- newest first\nSELECT id FROM t ORDER BY id DESC")).toBeUndefined();
  });

  it("accepts words that only look like writes: strings, quoted names, qualified columns", () => {
    expect(problemOf("SELECT 'DELETE FROM t' AS a, \"update\" FROM t")).toBeUndefined();
    expect(problemOf("SELECT s.set, s.copy FROM scores s")).toBeUndefined();
    expect(problemOf("SELECT replace(name, 'a', 'b') FROM t")).toBeUndefined();
  });

  it("refuses empty SQL", () => {
    expect(problemOf("")).toBe("is empty");
    expect(problemOf(" ; -- nothing")).toBe("is empty");
  });

  it("refuses more than one statement", () => {
    expect(problemOf("SELECT 1; SELECT 2")).toBe("holds 2 statements");
    expect(problemOf("SELECT 1; DROP TABLE t; SELECT 3")).toBe("holds 3 statements");
  });

  it("refuses a statement that is not a SELECT or WITH", () => {
    expect(problemOf("DELETE FROM t")).toBe("starts with DELETE");
    expect(problemOf("pragma table_info(t)")).toBe("starts with PRAGMA");
    expect(problemOf("VALUES (1)")).toBe("starts with VALUES");
    expect(problemOf("(1)")).toBe("holds no SQL keyword");
  });

  it("refuses writes inside a WITH or a SELECT", () => {
    expect(problemOf("WITH x AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM x)")).toBe(
      "writes: it uses DELETE",
    );
    expect(problemOf("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d")).toBe("writes: it uses DELETE");
    expect(problemOf("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x")).toBe("writes: it uses INSERT");
    expect(problemOf("SELECT * INTO backup FROM t")).toBe("writes: it uses INTO");
    expect(problemOf("SELECT * FROM t FOR UPDATE")).toBe("writes: it uses UPDATE");
  });
});
