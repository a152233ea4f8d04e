import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/generate.ts";

// The README's architecture, checked: only the shells, the CLI layer (src/cli) and the studio's
// server (src/studio), touch the disk, processes, the network, databases, the environment and
// timers (imports, static or dynamic, and built-in globals); src/runtime is code that generated
// servers run (the generator ships it as text) and only the CLI layer imports what in it reaches a
// database; nothing in src imports from templates/; there is no import cycle, between modules or
// between the layers (folders of src, the two shells counted as one: the CLI starts the studio,
// which calls the commands' own functions); and the studio's browser app (studio-ui/) takes nothing
// from src but types.

const SRC = join(REPO, "src");
const EFFECTS = [
  /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|tls|worker_threads|cluster)$/,
  /^(better-sqlite3|pg|execa|openai|@inquirer\/prompts|yocto-spinner)$/,
  /^@prisma\//,
];

/**
 * Built-in globals that reach outside the process or keep it alive: the network, the environment
 * and the process itself, timers. `process` is the process's every reach (env, argv, exit, cwd,
 * stdout); the pure layers are given what they need as arguments.
 */
const GLOBALS = new Set([
  "fetch",
  "WebSocket",
  "EventSource",
  "XMLHttpRequest",
  "process",
  "setTimeout",
  "setInterval",
  "setImmediate",
]);

interface Module {
  path: string;
  /** Imports that bring values (type-only imports are erased), static or dynamic (`import("x")`, `require("x")`). */
  packages: string[];
  /** Modules of src this one imports, values or types. */
  local: string[];
  /** Built-in globals of GLOBALS it uses, and dynamic imports of a specifier computed at run time. */
  globals: string[];
}

/** What a module's source imports and which outside-reaching globals it uses. */
export function analyze(file: string, text: string): Module {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const packages: string[] = [];
  const local: string[] = [];
  const globals: string[] = [];
  const imported = (specifier: string) => {
    if (specifier.startsWith(".")) local.push(resolve(dirname(file), specifier));
    else packages.push(specifier);
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const specifier = node.moduleSpecifier;
      if (specifier && ts.isStringLiteral(specifier)) {
        const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
        if (specifier.text.startsWith(".")) local.push(resolve(dirname(file), specifier.text));
        else if (!typeOnly) packages.push(specifier.text);
      }
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require"))
    ) {
      // A dynamic import (the CLI's lazily loaded commands) counts as a static one; one whose
      // specifier is computed cannot be checked, so it counts as reaching outside.
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteralLike(specifier)) imported(specifier.text);
      else globals.push(`import(${specifier?.getText(source) ?? ""})`);
    } else if (ts.isIdentifier(node) && GLOBALS.has(node.text) && isGlobalReference(node)) {
      globals.push(node.text);
    } else if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ["globalThis", "global", "window", "self"].includes(node.expression.text) &&
      GLOBALS.has(node.name.text)
    ) {
      globals.push(node.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { path: relative(REPO, file), packages, local, globals: [...new Set(globals)] };
}

/** Whether an identifier names a global where it stands: not a property name, a declaration or a type. */
function isGlobalReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isQualifiedName(parent) && parent.right === node) return false;
  if (
    (ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isTypeReferenceNode(parent) || ts.isTypeQueryNode(parent)) return false;
  const declared =
    (ts.isVariableDeclaration(parent) ||
      ts.isFunctionDeclaration(parent) ||
      ts.isParameter(parent) ||
      ts.isBindingElement(parent) ||
      ts.isImportSpecifier(parent)) &&
    parent.name === node;
  return !declared;
}

function modules(): Map<string, Module> {
  const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
  return new Map(files.map((file) => [file, analyze(file, readFileSync(file, "utf8"))]));
}

const all = modules();
const layer = (file: string) => relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");
const inCli = (file: string) => layer(file) === "cli";
/** The layers with effects: the CLI and the studio's server, another shell over the same pipeline. */
const SHELLS = new Set(["cli", "studio"]);
const inShell = (file: string) => SHELLS.has(layer(file));
/** A module's layer for the layer-cycle check: the shells are one, the top. */
const level = (file: string) => (inShell(file) ? "shells" : layer(file));
const effects = (module: Module) => [
  ...module.packages.filter((name) => EFFECTS.some((pattern) => pattern.test(name))),
  ...module.globals,
];

/** Every module a module reaches through its imports, itself included. */
function reached(start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of all.get(file)?.local ?? []) visit(next);
  };
  visit(start);
  return seen;
}

describe("the architecture", () => {
  it("knows every module (imports resolve to files of src)", () => {
    const unresolved = [...all.values()].flatMap((module) =>
      module.local.filter((file) => !all.has(file)).map((file) => `${module.path} → ${relative(REPO, file)}`),
    );
    expect(unresolved).toEqual([]);
    expect(all.size).toBeGreaterThan(30);
  });

  it("sees static and dynamic imports of packages, and globals that reach outside or keep the process alive", () => {
    const found = analyze(
      join(SRC, "emit", "probe.ts"),
      [
        'import type { Options } from "prettier";',
        'import { join } from "node:path";',
        'import { helper } from "./helper.ts";',
        "export async function probe(url: string) {",
        '  const { execa } = await import("execa");',
        '  const { spawn } = await import("node:child_process");',
        '  const fs = require("node:fs");',
        "  const module = await import(url);",
        "  const answer = await fetch(url);",
        "  const key = process.env.KEY;",
        "  setTimeout(() => undefined, 1000);",
        "  globalThis.setInterval(() => undefined, 1000);",
        "  const record = { fetch: 1, process: 2 };",
        "  return record.fetch + record.process;",
        "}",
      ].join("\n"),
    );
    expect(found.packages).toEqual(["node:path", "execa", "node:child_process", "node:fs"]);
    expect(found.local).toEqual([join(SRC, "emit", "helper.ts")]);
    expect(found.globals).toEqual(["import(url)", "fetch", "process", "setTimeout", "globalThis.setInterval"]);
    expect(effects(found)).toEqual([
      "execa",
      "node:child_process",
      "node:fs",
      "import(url)",
      "fetch",
      "process",
      "setTimeout",
      "globalThis.setInterval",
    ]);
  });

  it("keeps effects in the shells: no other module reaches the disk, processes, the network, a database, the environment or a timer", () => {
    const found: string[] = [];
    for (const [file, module] of all) {
      if (inShell(file)) continue;
      for (const other of reached(file)) {
        // A runtime module that touches a database is server code, shipped as text and imported by the CLI alone.
        if (layer(file) === "runtime" && layer(other) === "runtime") continue;
        const imported = effects(all.get(other)!);
        if (imported.length > 0) found.push(`${module.path} → ${relative(REPO, other)}: ${imported.join(", ")}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("lets only the CLI layer import the runtime modules that reach a database", () => {
    const found = [...all.values()].flatMap((module) =>
      module.local
        .filter((file) => layer(file) === "runtime" && effects(all.get(file)!).length > 0)
        .filter(() => !inCli(join(REPO, module.path)))
        .map((file) => `${module.path} → ${relative(REPO, file)}`),
    );
    expect(found).toEqual([]);
  });

  it("never imports from templates/: templates are data the CLI reads", () => {
    const found = [...all.values()].flatMap((module) =>
      module.local
        .filter((file) => relative(REPO, file).startsWith("templates/"))
        .map((file) => `${module.path} → ${file}`),
    );
    expect(found).toEqual([]);
  });

  it("has no import cycle between modules", () => {
    const cycles: string[] = [];
    const state = new Map<string, "visiting" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...stack.slice(stack.indexOf(file)), file].map((path) => relative(SRC, path)).join(" → "));
        return;
      }
      state.set(file, "visiting");
      stack.push(file);
      for (const next of all.get(file)?.local ?? []) visit(next);
      stack.pop();
      state.set(file, "done");
    };
    for (const file of all.keys()) visit(file);
    expect(cycles).toEqual([]);
  });

  it("has no cycle between layers: each folder of src depends only on the ones below it", () => {
    const edges = new Map<string, Set<string>>();
    for (const [file, module] of all) {
      for (const next of module.local) {
        if (level(next) !== level(file)) edges.set(level(file), (edges.get(level(file)) ?? new Set()).add(level(next)));
      }
    }
    const dependsOn = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some(
        (next) => next === to || (!seen.has(next) && seen.add(next) && dependsOn(next, to, seen)),
      );
    const cycles = [...edges].flatMap(([from, targets]) =>
      [...targets].filter((to) => dependsOn(to, from)).map((to) => `${from} ⇄ ${to}`),
    );
    expect(cycles).toEqual([]);
  });

  it("builds the studio's browser app from its own sources: it imports only types from src", () => {
    const ui = join(REPO, "studio-ui");
    const found: string[] = [];
    for (const entry of readdirSync(ui, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
      for (const statement of source.statements) {
        if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
        const target = resolve(dirname(file), statement.moduleSpecifier.text);
        if (
          statement.moduleSpecifier.text.startsWith(".") &&
          target.startsWith(SRC) &&
          !statement.importClause?.isTypeOnly
        )
          found.push(`${relative(REPO, file)} → ${relative(REPO, target)}`);
      }
    }
    expect(found).toEqual([]);
  });
});
