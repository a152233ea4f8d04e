/**
 * Where strict JSON text first goes wrong, and why. JSON.parse says neither reliably (V8 omits
 * the position for some errors), and the YAML parser that reads manifests for their line numbers
 * accepts more than JSON does.
 */
export interface JsonSyntaxError {
  offset: number;
  message: string;
}

export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    return new JsonScanner(text).scan();
  }
}

/** 1-based line and column of an offset. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

class Failure {
  constructor(
    readonly offset: number,
    readonly message: string,
  ) {}
}

class JsonScanner {
  private i = 0;
  constructor(private readonly text: string) {}

  scan(): JsonSyntaxError {
    try {
      this.value();
      this.space();
      if (this.i < this.text.length) this.fail(`unexpected ${this.found()} after the end of the document`);
      // JSON.parse refused what this scanner accepts: only a lone surrogate or the like is left.
      return { offset: 0, message: "not valid JSON" };
    } catch (error) {
      if (error instanceof Failure) return { offset: error.offset, message: error.message };
      throw error;
    }
  }

  private fail(message: string, offset = this.i): never {
    throw new Failure(offset, message);
  }

  private found(): string {
    if (this.i >= this.text.length) return "end of file";
    const word = /^[A-Za-z0-9_$.+-]+/.exec(this.text.slice(this.i))?.[0];
    return word ? JSON.stringify(word) : JSON.stringify(this.text[this.i]);
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i]!)) this.i++;
  }

  private expect(char: string, what: string): void {
    this.space();
    if (this.text[this.i] !== char) this.fail(`expected ${what}, found ${this.found()}`);
    this.i++;
  }

  private value(): void {
    this.space();
    const c = this.text[this.i];
    if (c === "{") this.object();
    else if (c === "[") this.array();
    else if (c === '"') this.string();
    else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) this.number();
    else {
      const word = /^(true|false|null)(?![A-Za-z0-9_$])/.exec(this.text.slice(this.i))?.[0];
      if (!word) this.fail(`expected a value, found ${this.found()}`);
      this.i += word.length;
    }
  }

  private object(): void {
    this.i++;
    this.space();
    if (this.text[this.i] === "}") {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] === "}") this.fail("trailing comma before }", this.i);
      if (this.text[this.i] !== '"') this.fail(`expected a double-quoted property name, found ${this.found()}`);
      this.string();
      this.expect(":", '":"');
      this.value();
      this.space();
      if (this.text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.text[this.i] === "}") {
        this.i++;
        return;
      }
      this.fail(`expected "," or "}", found ${this.found()}`);
    }
  }

  private array(): void {
    this.i++;
    this.space();
    if (this.text[this.i] === "]") {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] === "]") this.fail("trailing comma before ]", this.i);
      this.value();
      this.space();
      if (this.text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.text[this.i] === "]") {
        this.i++;
        return;
      }
      this.fail(`expected "," or "]", found ${this.found()}`);
    }
  }

  private string(): void {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length) {
      const c = this.text[this.i]!;
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === "\\") {
        const escape = this.text[this.i + 1];
        if (escape === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6)))
            this.fail("invalid \\u escape in a string");
          this.i += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) this.i += 2;
        else this.fail(`invalid escape \\${escape ?? ""} in a string`);
      } else if (c < " ") {
        this.fail(c === "\n" ? "unterminated string" : "control character in a string");
      } else this.i++;
    }
    this.fail("unterminated string", start);
  }

  private number(): void {
    const rest = this.text.slice(this.i);
    const token = /^[-+A-Za-z0-9_.]+/.exec(rest)![0];
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(rest);
    if (match?.[0] !== token) this.fail(`invalid number ${JSON.stringify(token)}`);
    this.i += token.length;
  }
}
