import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** bin/tablegen.js's test: dist/main.js exists and no file of src/ is newer. */
function compiledIsCurrent(): boolean {
  const compiled = join(REPO, "dist", "main.js");
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  const sources = join(REPO, "src");
  return readdirSync(sources, { recursive: true, encoding: "utf8" }).every(
    (file) => statSync(join(sources, file)).mtimeMs <= built,
  );
}

// bin/tablegen.js runs the compiled CLI in dist/ when it is current (as after `npm ci`, which builds
// it), and the TypeScript sources through tsx otherwise, about 0.4 s of CPU more per command; the
// tests run a hundred-odd commands. So a run whose dist/ is out of date (src/ edited since) starts
// with `npm run build`, as `npm install` would. A failed build leaves the commands on tsx, and
// TABLEGEN_TEST_NO_BUILD=1 skips the build (to run the sources through tsx on purpose).
export default async function setup() {
  if (process.env.TABLEGEN_TEST_NO_BUILD === "1" || compiledIsCurrent()) return;
  const build = await execa("npm", ["run", "--silent", "build"], { cwd: REPO, reject: false, all: true });
  if (build.exitCode !== 0) {
    console.warn(`\n[tablegen] npm run build failed, the CLI runs through tsx:\n${build.all}\n`);
  }
}
