import { watch } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { RUN_ROOT_VARIABLE } from "./run-root.ts";

// What the test files of a run prepare once and share (test/helpers/shared-examples.ts, the
// migrated projects of test/migrate/scenario.ts), whichever worker process asks first.

/**
 * Runs `work` once per test run for `key`: the first caller, in any worker process, takes a lock
 * (an exclusive mkdir) and writes the outcome to a file; the others wait for that file to appear
 * (an event of its folder, not a clock: on a loaded machine they wait longer).
 */
export async function oncePerRun<T>(key: string, work: () => Promise<T>): Promise<T> {
  const root = process.env[RUN_ROOT_VARIABLE];
  if (!root) throw new Error(`${RUN_ROOT_VARIABLE} is not set: run the tests through vitest (test/setup/run-root.ts)`);
  const slots = join(root, "shared");
  await mkdir(slots, { recursive: true });
  const outcome = join(slots, `${key}.json`);
  let owner = true;
  await mkdir(join(slots, `${key}.lock`)).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
    owner = false;
  });
  if (owner) {
    let result: { value: T } | { error: string };
    try {
      result = { value: await work() };
    } catch (error) {
      result = { error: (error as Error).stack ?? String(error) };
    }
    await writeFile(`${outcome}.tmp`, JSON.stringify(result));
    await rename(`${outcome}.tmp`, outcome);
    if ("error" in result) throw new Error(`preparing ${key} failed:\n${result.error}`);
    return result.value;
  }
  const result = JSON.parse(await appeared(outcome)) as { value: T } | { error: string };
  if ("error" in result) throw new Error(`preparing ${key} failed:\n${result.error}`);
  return result.value;
}

/** A file's text once it exists: at once, or when its folder says it was made (renamed into place). */
function appeared(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Watched before the first look, so that a file made in between is not missed.
    const watcher = watch(dirname(file));
    const look = () =>
      readFile(file, "utf8").then(
        (text) => {
          watcher.close();
          resolve(text);
        },
        () => undefined,
      );
    watcher.on("change", (_event, name) => {
      if (name === basename(file)) void look();
    });
    watcher.on("error", (error) => {
      watcher.close();
      reject(error);
    });
    void look();
  });
}
