import { accessSync, constants, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UserError } from "../errors.ts";
import { shownPath } from "./paths.ts";

/**
 * Makes sure a directory exists and can be written in, creating it and its missing parents one
 * level at a time; returns the directories it created, outermost first. Node's own recursive
 * mkdir never returns where mkdir answers ENOENT for a parent that exists (`/proc/nope`), so it
 * is not used. A directory that cannot be made or written in is a UserError naming it and why.
 */
export function makeDirectory(dir: string): string[] {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let current = target; ; current = dirname(current)) {
    const kind = kindOf(current);
    if (kind === "directory") break;
    if (kind === "other") {
      const which = current === target ? "it is a file, not a directory" : `${shownPath(current)} is not a directory`;
      throw new UserError(`cannot create directory ${shownPath(target)}: ${which}`);
    }
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  const created: string[] = [];
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      removeDirectories(created);
      throw new UserError(`cannot create directory ${shownPath(target)}: ${reason(error)}`);
    }
    created.push(path);
  }
  try {
    accessSync(target, constants.W_OK);
  } catch (error) {
    throw new UserError(`cannot write in directory ${shownPath(target)}: ${reason(error)}`);
  }
  return created;
}

/** Removes directories that makeDirectory created, innermost first, as long as they are empty. */
export function removeDirectories(created: readonly string[]): void {
  for (const path of [...created].reverse()) {
    try {
      if (readdirSync(path).length > 0) return;
      rmdirSync(path);
    } catch {
      return;
    }
  }
}

function kindOf(path: string): "directory" | "other" | "missing" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file, which the walk up then finds.
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw new UserError(`cannot use directory ${shownPath(path)}: ${reason(error)}`);
  }
}

/** The system's words for a failed call, with its code: `permission denied (EACCES)`. */
function reason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const words = /^[A-Z]+: ([^,]+)/.exec(message)?.[1];
  return words && code ? `${words} (${code})` : message;
}
