import { basename, relative, resolve } from "node:path";
import { emitServer } from "../emit/index.ts";
import { readManifest } from "../manifest/index.ts";
import { compareTree } from "../tree/writer.ts";
import { writeServer } from "../write-server.ts";

export interface GenerateOptions {
  manifest: string;
  out: string;
  check?: boolean;
}

export interface GenerateResult {
  ok: boolean;
  summary: string;
}

/** `tablegen generate`: manifest → server files (or, with --check, a comparison with them). */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const { manifest, model } = await readManifest(options.manifest);
  const outDir = resolve(options.out);
  const emitOptions = { manifestName: basename(options.manifest) };
  const shown = relative(process.cwd(), outDir) || ".";

  if (options.check) {
    const differences = await compareTree(outDir, emitServer(model, emitOptions));
    if (differences.length === 0) return { ok: true, summary: `${shown} is up to date with ${options.manifest}` };
    const lines = differences.map(({ path, status }) => `  ${status.padEnd(7)} ${path}`);
    return {
      ok: false,
      summary: `${shown} is not what ${options.manifest} generates (${differences.length} files):\n${lines.join("\n")}\nRun "tablegen generate" to update it.`,
    };
  }

  const { tree, written, removed, migration } = await writeServer(outDir, { manifest, model }, emitOptions);
  const parts = [`Generated ${shown}: ${written.length} files written, ${tree.size + 1 - written.length} unchanged`];
  if (removed.length > 0) parts.push(`${removed.length} removed (${removed.join(", ")})`);
  let summary = parts.join(", ");
  if (migration) summary += `\nWrote the first migration: ${relative(process.cwd(), migration)}`;
  return { ok: true, summary };
}
