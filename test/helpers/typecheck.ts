import { dirname, join, relative } from "node:path";
import ts from "typescript";

// Type checks of generated servers, as `tsc --noEmit -p <tsconfig>` makes them, but in this
// process: the TypeScript compiler's own API with the project's parsed configuration, the very
// checker tsc runs. What every server shares (TypeScript's lib files, @types/node, Fastify's and
// the drivers' declarations) is parsed once per test file, not once per check.

/**
 * Parsed declaration files outside the checked servers, by path and the options that parse and bind
 * them (as TypeScript's own document registry keys them): the same text for every server.
 */
const shared = new Map<string, ts.SourceFile>();

/** A compiler host that parses a file of node_modules or TypeScript's lib once for all checks. */
function sharingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  const settings = JSON.stringify([
    options.target,
    options.module,
    options.moduleResolution,
    options.strict,
    options.allowJs,
  ]);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!/[/\\]node_modules[/\\]/.test(fileName)) return read(fileName, languageVersion, onError, shouldCreate);
    const key = `${fileName}\n${settings}\n${JSON.stringify(languageVersion)}`;
    let file = shared.get(key);
    if (!file) {
      file = read(fileName, languageVersion, onError, shouldCreate);
      if (file) shared.set(key, file);
    }
    return file;
  };
  return host;
}

/** tsc's lines for diagnostics: `file(line,col): error TS1234: message`, paths relative to `dir`. */
function formatted(diagnostics: readonly ts.Diagnostic[], dir: string): string[] {
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const code = `error TS${diagnostic.code}`;
    if (!diagnostic.file || diagnostic.start === undefined) return `${code}: ${message}`;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(dir, diagnostic.file.fileName)}(${line + 1},${character + 1}): ${code}: ${message}`;
  });
}

/**
 * The errors `tsc --noEmit -p <config>` reports for the project of `config` (a tsconfig file), as tsc
 * words them; with `only` (a path relative to the config's folder), those of that file alone: the
 * checker then looks only at what that file uses, not at every file.
 */
export function typeCheck(config: string, only?: string): string[] {
  const dir = dirname(config);
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(formatted([diagnostic], dir).join("\n"));
      },
    },
  )!;
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    host: sharingHost(parsed.options),
    projectReferences: parsed.projectReferences,
  });
  const file = only === undefined ? undefined : program.getSourceFile(join(dir, only));
  if (only !== undefined && file === undefined) throw new Error(`${only} is not a file of ${config}'s project`);
  return formatted([...parsed.errors, ...ts.getPreEmitDiagnostics(program, file)], dir);
}

/** The errors of JavaScript files checked as `tsc --noEmit --allowJs --checkJs <options> <files>` checks them. */
export function typeCheckFiles(dir: string, files: string[], options: ts.CompilerOptions): string[] {
  const all = { ...options, noEmit: true, allowJs: true, checkJs: true };
  const program = ts.createProgram({
    rootNames: files.map((file) => join(dir, file)),
    options: all,
    host: sharingHost(all),
  });
  return formatted(ts.getPreEmitDiagnostics(program), dir);
}
