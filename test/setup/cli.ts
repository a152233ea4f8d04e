import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** bin/tablegen.js's test: dist/main.js exists and no file of src/ is newer (and so for the studio's app). */
function compiledIsCurrent(): boolean {
  return (
    isCurrent(join(REPO, "dist", "main.js"), join(REPO, "src")) &&
    isCurrent(join(REPO, "dist", "studio", "main.js"), join(REPO, "studio-ui"))
  );
}

function isCurrent(compiled: string, sources: string): boolean {
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  return readdirSync(sources, { recursive: true, encoding: "utf8" }).every(
    (file) => statSync(join(sources, file)).mtimeMs <= built,
  );
}

// bin/tablegen.js runs the compiled CLI in dist/ when it is current (as after `npm ci`, which builds
// it), and the TypeScript sources through tsx otherwise, about 0.4 s of CPU more per command; the
// tests run a hundred-odd commands. So a run whose dist/ is out of date (src/ edited since) starts
// with `npm run build`, as `npm install` would; it also builds the studio's browser app (dist/studio,
// which the studio serves however the CLI runs) when studio-ui/ changed. A failed build leaves the commands on tsx, and
// TABLEGEN_TEST_NO_BUILD=1 skips the build (to run the sources through tsx on purpose).
export default async function setup() {
  if (process.env.TABLEGEN_TEST_NO_BUILD === "1" || compiledIsCurrent()) return;
  const build = await execa("npm", ["run", "--silent", "build"], { cwd: REPO, reject: false, all: true });
  if (build.exitCode !== 0) {
    console.warn(`\n[tablegen] npm run build failed, the CLI runs through tsx:\n${build.all}\n`);
  }
}
