/**
 * A Markdown table (`| a | b |` rows under a `|---|---|` line) aligned as prettier aligns it: each
 * column as wide as its widest cell (three at least), cells padded after their text.
 */
export function markdownTable(text: string): string {
  const rows = text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  const cells = [header!, ...body];
  const widths = header!.map((_, column) => Math.max(3, ...cells.map((row) => [...(row[column] ?? "")].length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header!), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n") + "\n";
}
