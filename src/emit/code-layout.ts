/**
 * Whether TypeScript that a template wrote in prettier's layout can skip prettier: every line of
 * code fits the print width, in ASCII. Templates write the layout prettier gives their code when it
 * fits (test/emit/rendered.test.ts checks it, over names of every length); a line that does not fit
 * is one prettier would break differently, and a character that may be wider than one column is one
 * prettier measures differently, so such a file goes through prettier. What prettier never breaks
 * does not count: comment lines, lines that start inside a comment or a template literal (SQL), and
 * the text of template literals (the templates' layout helpers measure it where prettier would).
 */
export function fitsPrintWidth(text: string, printWidth: number): boolean {
  let state: "code" | "block" | "template" = "code";
  // Template literals and the `${…}` code inside them nest: the brace depth at which each opened.
  const templates: number[] = [];
  let depth = 0;
  let lineStart = 0;
  let exempt = false;
  // Characters of the line inside template literals.
  let literal = 0;
  const startLine = (at: number) => {
    lineStart = at;
    literal = 0;
    if (state !== "code") exempt = true;
    else {
      let first = at;
      while (text[first] === " ") first++;
      exempt = text.startsWith("//", first) || text.startsWith("/*", first);
    }
  };
  startLine(0);
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\n") {
      if (!exempt && i - lineStart - literal > printWidth) return false;
      startLine(i + 1);
      continue;
    }
    if (char! > "\x7f" && !exempt && state !== "block") return false;
    if (state === "block") {
      if (char === "*" && text[i + 1] === "/") {
        state = "code";
        i++;
      }
    } else if (state === "template") {
      literal++;
      if (char === "\\") {
        i++;
        literal++;
      } else if (char === "`") {
        templates.pop();
        state = "code";
      } else if (char === "$" && text[i + 1] === "{") {
        depth++;
        state = "code";
        i++;
      }
    } else if (char === "/" && text[i + 1] === "/") {
      while (i + 1 < text.length && text[i + 1] !== "\n") i++;
    } else if (char === "/" && text[i + 1] === "*") {
      state = "block";
      i++;
    } else if (char === '"' || char === "'") {
      for (i++; i < text.length && text[i] !== char && text[i] !== "\n"; i++) {
        if (text[i]! > "\x7f") return false;
        if (text[i] === "\\") i++;
      }
    } else if (char === "`") {
      templates.push(depth);
      state = "template";
    } else if (char === "{") depth++;
    else if (char === "}") {
      depth--;
      if (templates.length > 0 && templates.at(-1) === depth) state = "template";
    }
  }
  return exempt || text.length - lineStart - literal <= printWidth;
}
