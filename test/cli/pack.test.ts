import { existsSync, readFileSync, readdirSync } from "node:fs";
import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO, scratchDir } from "../helpers/generate.ts";

// The package `npm pack` makes (issue 16): what a user installs to run tablegen outside the
// repository. Packed without scripts (prepack rebuilds dist/, which the other test files' CLI runs
// use; the test run built it already), unpacked into a scratch directory beside the dependencies,
// and run there: --help, and a generate whose server has its first migration.

const PACKAGE = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  version: string;
};

describe("the npm package", () => {
  it("holds the compiled CLI and everything it reads, and runs outside the repository", async () => {
    const dir = await scratchDir("pack");
    const packed = await execa("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: REPO,
    });
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((file) => file.path);
    for (const path of [
      "bin/tablegen.js",
      "dist/main.js",
      "templates/server/src/app.ts",
      "src/runtime/formats.ts",
      // The studio's browser app, built: nothing of it is fetched from anywhere at run time.
      "dist/studio/index.html",
      "dist/studio/main.js",
      "dist/studio/main.css",
    ])
      expect(paths, path).toContain(path);
    // Its sources and the README's screenshots stay in the repository.
    expect(paths.filter((path) => path.startsWith("studio-ui/") || path.endsWith(".png"))).toEqual([]);
    expect(paths.filter((path) => /^(test|bench|scripts|examples)\//.test(path) || path.endsWith(".db"))).toEqual([]);

    // Every package the compiled CLI imports is a dependency (installed with it), not a dev dependency.
    const imported = new Set<string>();
    for (const file of readdirSync(join(REPO, "dist")).filter((name) => name.endsWith(".js"))) {
      const text = readFileSync(join(REPO, "dist", file), "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^".][^"]*)"/g)) {
        if (specifier!.startsWith("node:") || !/^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(specifier!)) continue;
        const parts = specifier!.split("/");
        imported.add(specifier!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
      }
    }
    expect([...imported].filter((name) => !(name in PACKAGE.dependencies))).toEqual([]);

    // Unpacked where the repository is out of reach, beside its dependencies (as npm install puts them).
    await execa("tar", ["xzf", filename, "-C", dir], { cwd: dir });
    const pkg = join(dir, "package");
    expect(existsSync(join(pkg, "tsconfig.json"))).toBe(false);
    await symlink(join(REPO, "node_modules"), join(pkg, "node_modules"));
    const project = join(dir, "project");
    await mkdir(project);
    await copyFile(join(REPO, "examples/tasks.yaml"), join(project, "tablegen.yaml"));
    const tablegen = (args: string[]) =>
      execa(process.execPath, [join(pkg, "bin/tablegen.js"), ...args], { cwd: project, reject: false });

    const help = await tablegen(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toMatch(/^Usage: tablegen \[options\] \[command\]/);
    const generated = await tablegen(["generate"]);
    expect(generated.stderr).toBe("");
    expect(generated.stdout).toMatch(/^Generated server: \d+ files written, 0 unchanged\nWrote the first migration: /);
    const packageJson = JSON.parse(await readFile(join(project, "server/package.json"), "utf8"));
    expect(packageJson.dependencies.fastify).toMatch(/^\^\d/);
    // The studio serves its prebuilt app from the installed package.
    const studio = execa(process.execPath, [join(pkg, "bin/tablegen.js"), "studio", ".", "--port", "0"], {
      cwd: project,
      buffer: false,
      reject: false,
    });
    const address = await new Promise<URL>((resolve, reject) => {
      let output = "";
      studio.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const match = /tablegen studio: (http:\/\/\S+)/.exec(output);
        if (match) resolve(new URL(match[1]!));
      });
      studio.on("exit", (code) => reject(new Error(`tablegen studio exited with ${code}: ${output}`)));
    });
    try {
      const cookie = `tablegen_studio_${address.port}=${address.searchParams.get("token")}`;
      for (const [path, type] of [
        ["/", "text/html"],
        ["/main.js", "javascript"],
        ["/main.css", "text/css"],
      ] as const) {
        const answer = await fetch(new URL(path, address), { headers: { cookie } });
        expect(answer.status, path).toBe(200);
        expect(answer.headers.get("content-type"), path).toContain(type);
      }
    } finally {
      studio.kill("SIGTERM");
      await studio;
    }
    // The installed package runs its compiled CLI (no TypeScript loader), however new its sources look.
    await writeFile(join(pkg, "src/cli/main.ts"), "throw new Error('the sources ran');\n");
    expect((await tablegen(["--version"])).stdout).toBe(PACKAGE.version);
  });
});
