import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { UserError } from "../errors.ts";
import { shownPath } from "../cli/paths.ts";

/**
 * The studio's workspace: the directory it was started in, which is a project (it holds a
 * manifest) or holds projects (its folders that do). Projects are found on disk each time they are
 * asked for; an id is a folder's name, never a path a browser sent.
 */

export const MANIFEST_NAMES = ["tablegen.yaml", "tablegen.json"] as const;
/** Where the studio keeps a project's generated server: the CLI's default `--out`. */
export const SERVER_DIR = "server";

export interface Project {
  id: string;
  /** Absolute paths of the project folder, its manifest and its server. */
  dir: string;
  manifest: string;
  out: string;
}

/** Paths as the CLI's messages show them: relative to the studio's working directory. */
export function shown(path: string): string {
  return shownPath(path);
}

export class Workspace {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    if (!existsSync(this.dir)) throw new UserError(`${shown(this.dir)}: no such directory`);
    if (!statSync(this.dir).isDirectory()) throw new UserError(`${shown(this.dir)}: not a directory`);
  }

  /** Whether the workspace is itself a project (then it holds no other). */
  isProject(): boolean {
    return manifestIn(this.dir) !== undefined;
  }

  projects(): Project[] {
    const own = projectAt(this.dir);
    if (own) return [own];
    const entries = readdirSync(this.dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules")
      .map((entry) => entry.name)
      .sort();
    return entries.flatMap((name) => projectAt(join(this.dir, name)) ?? []);
  }

  project(id: string): Project {
    const found = this.projects().find((project) => project.id === id);
    if (!found) throw new NotFound(`No project "${id}" in ${shown(this.dir)}`);
    return found;
  }
}

function manifestIn(dir: string): string | undefined {
  return MANIFEST_NAMES.map((name) => join(dir, name)).find((path) => existsSync(path));
}

function projectAt(dir: string): Project | undefined {
  const manifest = manifestIn(dir);
  if (!manifest) return undefined;
  return { id: basename(dir), dir, manifest, out: join(dir, SERVER_DIR) };
}

/** A manifest's text and the hash a save compares, so that a file edited meanwhile is not overwritten. */
export function readManifestText(project: Project): { text: string; hash: string } {
  const text = readFileSync(project.manifest, "utf8");
  return { text, hash: textHash(text) };
}

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/** A request for something that is not there: 404. */
export class NotFound extends UserError {}

/** A request that cannot be served in the state things are in (a busy project, a stopped server, a file changed meanwhile): 409. */
export class Conflict extends UserError {}
