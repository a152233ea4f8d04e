import { describe, expect, it } from "vitest";
import { fitsPrintWidth } from "../../src/emit/code-layout.ts";

// A rendered file skips prettier only when its code fits the print width: what prettier never breaks
// (comments, template literals) does not count; a character that may be wider than a column does.

const line = (length: number) => `const a = "${"x".repeat(length - 13)}";`;

describe("fitsPrintWidth", () => {
  it("measures each line of code against the width", () => {
    expect(line(40)).toHaveLength(40);
    expect(fitsPrintWidth(`${line(40)}\n${line(40)}\n`, 40)).toBe(true);
    expect(fitsPrintWidth(`${line(40)}\n${line(41)}\n`, 40)).toBe(false);
    expect(fitsPrintWidth(line(41), 40)).toBe(false);
  });

  it("does not count comment lines, nor lines that start inside a comment", () => {
    const long = "x".repeat(60);
    expect(fitsPrintWidth(`// ${long}\n  /** ${long} */\n/*\n ${long}\n*/\nconst a = 1;\n`, 40)).toBe(true);
    expect(fitsPrintWidth(`const a = 1; // ${long}\n`, 40)).toBe(false);
  });

  it("does not count the text of template literals, which prettier never breaks", () => {
    const sql = `SELECT ${"x, ".repeat(30)}y`;
    expect(fitsPrintWidth(`const SQL = \`\n  ${sql}\n\`;\nfind(\`${sql}\`);\n`, 40)).toBe(true);
    expect(fitsPrintWidth(`const q = \`${"a".repeat(50)} \${value} b\`;\n`, 40)).toBe(true);
    expect(fitsPrintWidth(`const q = \`a \${${"value".repeat(10)}} b\`;\n`, 40)).toBe(false);
  });

  it("refuses code that is not ASCII, outside comments", () => {
    expect(fitsPrintWidth('const a = "é";\n', 40)).toBe(false);
    expect(fitsPrintWidth("const 名 = 1;\n", 40)).toBe(false);
    expect(fitsPrintWidth("// a → b\nconst a = 1;\n/** … */\n", 40)).toBe(true);
  });
});
