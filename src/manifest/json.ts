import { getLocation, parse, printParseErrorCode, type ParseError } from "jsonc-parser";

/**
 * Where strict JSON text first goes wrong, and why, as found by jsonc-parser: JSON.parse says
 * neither reliably, and the YAML parser that reads manifests for their line numbers accepts more
 * than JSON does.
 */
export interface JsonSyntaxError {
  offset: number;
  message: string;
}

type Code = ReturnType<typeof printParseErrorCode>;

/** The reason for each error code, given the token found there and the closing bracket due. */
const reasons: Record<Code, (found: string, close: string) => string> = {
  InvalidSymbol: (found) => `expected a value, found ${found}`,
  ValueExpected: (found) => `expected a value, found ${found}`,
  PropertyNameExpected: (found) => `expected a double-quoted property name, found ${found}`,
  ColonExpected: (found) => `expected ":", found ${found}`,
  CommaExpected: (found, close) => `expected "," or "${close}", found ${found}`,
  CloseBraceExpected: (found) => `expected "," or "}", found ${found}`,
  CloseBracketExpected: (found) => `expected "," or "]", found ${found}`,
  EndOfFileExpected: (found) => `unexpected ${found} after the end of the document`,
  InvalidNumberFormat: (found) => `invalid number ${found}`,
  UnexpectedEndOfNumber: (found) => `invalid number ${found}`,
  InvalidCommentToken: () => "comments are not allowed in JSON",
  UnexpectedEndOfComment: () => "comments are not allowed in JSON",
  UnexpectedEndOfString: () => "unterminated string",
  InvalidUnicode: () => "invalid \\u escape in a string",
  InvalidEscapeCharacter: () => "invalid escape in a string",
  InvalidCharacter: () => "control character in a string",
  "<unknown ParseErrorCode>": () => "not valid JSON",
};

export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const [error] = errors;
  if (!error) return undefined;
  const { offset } = error;
  let code = printParseErrorCode(error.error);
  // jsonc-parser reads "01" as 0 then 1, and "1.5.3" as 1.5 then .3: report the whole word.
  const start = /[\w$.+-]*$/.exec(text.slice(0, offset))!.index;
  const word = /^[\w$.+-]*/.exec(text.slice(start))![0];
  const inWord = start < offset ? start + word.length > offset : /Symbol|Number/.test(code);
  if (/^[-\d]/.test(word) && inWord) return { offset: start, message: `invalid number ${JSON.stringify(word)}` };

  const token = text.slice(offset, offset + error.length) || text.charAt(offset);
  const previous = text
    .slice(0, offset)
    .replace(/[ \t\r\n]+$/, "")
    .at(-1);
  const location = getLocation(text, offset);
  const close = typeof location.path.at(-1) === "number" ? "]" : "}";
  if (/PropertyNameExpected|ValueExpected/.test(code) && previous === "," && token === close)
    return { offset, message: `trailing comma before ${close}` };
  if (code === "InvalidSymbol" && previous !== undefined && !"{[,:".includes(previous))
    code = location.path.length > 0 ? "CommaExpected" : "EndOfFileExpected";
  else if (/InvalidSymbol|ValueExpected/.test(code) && location.isAtPropertyKey) code = "PropertyNameExpected";

  const shown = token.length > 30 ? `${token.slice(0, 29)}…` : token;
  const found = !token ? "end of file" : token.startsWith('"') ? shown : JSON.stringify(shown);
  return { offset, message: reasons[code](found, close) };
}

/** 1-based line and column of an offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}
