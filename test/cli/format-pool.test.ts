import { describe, expect, it } from "vitest";
import { availableParallelism } from "node:os";
import { formatPool, PER_THREAD } from "../../src/cli/format-pool.ts";
import { formatThreads } from "../../src/cli/generate.ts";
import { UserError } from "../../src/errors.ts";
import { formatInThread, type FormatJob } from "../../src/emit/format.ts";

// generate's prettier on worker threads: the same files as in this thread, whatever thread lays
// out which file, and prettier's own error for a file it cannot read.

const config = { printWidth: 120 };
const tsFile = (index: number): FormatJob => ({
  path: `src/file-${index}.ts`,
  text: `export const  value${index} = {a:1,  b:[${"1,".repeat(index % 40)}2], c: "${"x".repeat(index)}"}\n`,
  parser: "babel-ts",
});
const many = (count: number) => Array.from({ length: count }, (_, index) => tsFile(index));

describe("the format pool", () => {
  it("lays out every file as this thread does, in the jobs' order, on its threads", async () => {
    const jobs = [
      ...many(300),
      { path: "README.md", text: "# Title\n\n\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", parser: "markdown" },
    ];
    const pool = formatPool(2, 0);
    try {
      expect(await pool.formatFiles(jobs, config)).toEqual(await formatInThread(jobs, config));
      expect(pool.started).toBe(2);
      // A second batch goes to the same threads.
      expect(await pool.formatFiles(jobs.slice(0, 3), config)).toEqual(await formatInThread(jobs.slice(0, 3), config));
    } finally {
      await pool.close();
    }
  });

  it("answers prettier's error for a file it cannot parse", async () => {
    const jobs = [...many(300), { path: "src/broken.ts", text: "export const = ;\n", parser: "babel-ts" }];
    const expected = await formatInThread(jobs.slice(-1), config).catch((error: Error) => error.message);
    expect(expected).toMatch(/^Unexpected token/);
    const pool = formatPool(2, 0);
    try {
      await expect(pool.formatFiles(jobs, config)).rejects.toThrow(expected as string);
      expect(pool.started).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it("lays out a batch too small for two threads in this thread, without starting any", async () => {
    const pool = formatPool(2);
    const jobs = many(3);
    expect(jobs.reduce((size, job) => size + job.text.length, 0)).toBeLessThan(2 * PER_THREAD);
    expect(await pool.formatFiles(jobs, config)).toEqual(await formatInThread(jobs, config));
    expect(pool.started).toBe(0);
    await pool.close();
  });
});

describe("TABLEGEN_FORMAT_THREADS", () => {
  it("gives the number of threads, one per core when unset", () => {
    expect(formatThreads("1")).toBe(1);
    expect(formatThreads(" 3 ")).toBe(3);
    expect(formatThreads(undefined)).toBe(availableParallelism());
    expect(formatThreads("")).toBe(availableParallelism());
  });

  it.each(["0", "-2", "1.5", "two"])("refuses %j with the setting's name and value", (setting) => {
    const error = (() => {
      try {
        formatThreads(setting);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toBe(
      `TABLEGEN_FORMAT_THREADS must be a whole number of threads, 1 or more (it is "${setting}")`,
    );
  });
});
