import { createTwoFilesPatch } from "diff";

/** A unified diff of a file, from what is on disk (`a/`) to what the manifest generates (`b/`). */
export function unifiedDiff(path: string, current: string | undefined, generated: string | undefined): string {
  const patch = createTwoFilesPatch(
    current === undefined ? "/dev/null" : `a/${path}`,
    generated === undefined ? "/dev/null" : `b/${path}`,
    current ?? "",
    generated ?? "",
    undefined,
    undefined,
    { context: 3 },
  );
  // jsdiff opens with an "Index:"-less "===" banner line; keep git's shape: from the --- line on.
  return patch.slice(patch.indexOf("---"));
}
