import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { UserError } from "../errors.ts";
import { DATABASES } from "../manifest/schema.ts";
import { packagePath } from "./paths.ts";
import type { AiCommandOptions } from "./ai.ts";
import type { GenerateOptions } from "./generate.ts";
import type { KeyRequest } from "../keys/keys.ts";
import type { KeysOptions } from "./keys.ts";
import type { MigrateOptions } from "./migrate.ts";
import type { StudioCommandOptions } from "../studio/index.ts";

const DEFAULT_MANIFEST = "tablegen.yaml";
const DEFAULT_OUT = "server";

function version(): string {
  return (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;
}

/**
 * How the user runs tablegen, for the commands it suggests: `npx tablegen` when this run came
 * through npx or `npm exec` (npm sets npm_command=exec and npm_lifecycle_event=npx for both), else
 * `tablegen`, as installed globally.
 */
function tablegenCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.npm_command === "exec" || env.npm_lifecycle_event === "npx" ? "npx tablegen" : "tablegen";
}

/** What to run after init or ai: the README's typical session, command for command. */
const NEXT_STEPS = (manifest = "", tablegen = tablegenCommand()) =>
  `${tablegen} generate${manifest} && ${tablegen} migrate${manifest} && cd ${DEFAULT_OUT} && npm install && npm start`;

/** The exit code an action asks for when it fails without throwing (generate --check). */
interface Outcome {
  exitCode: number;
}

function program(outcome: Outcome): Command {
  const cli = new Command("tablegen")
    .description("Generate a standalone REST server (Fastify, Prisma, SQLite or PostgreSQL) from a table manifest.")
    .version(version(), "-V, --version", "print the version of tablegen")
    .option("--debug", "show stack traces of errors")
    // One clear line for a usage mistake, as for any other user error: not the whole help.
    .configureOutput({ outputError: (message, write) => write(message.replace(/^error: /, "tablegen: ")) })
    .showHelpAfterError("(add --help for usage)")
    .exitOverride();

  cli
    .command("init")
    .description("scaffold a project: a starter tablegen.yaml and a .env with a fresh API signature key")
    .argument("[dir]", "directory to create the project in", ".")
    .option("--name <name>", "project name (first URL segment)")
    .addOption(new Option("--db <database>", "database").choices(DATABASES))
    .option("--ai <prompt>", "draft the tables with the AI generator from a description of the app")
    .option("--model <name>", "with --ai: model name (default: $TABLEGEN_AI_MODEL or gpt-4.1-mini)")
    .option("--timeout <seconds>", "with --ai: give up on a request to the model after this many seconds", "60")
    .option("--max-repairs <n>", "with --ai: how many times invalid drafts are sent back for repair", "2")
    .option("-y, --yes", "use defaults instead of asking")
    .option("--force", "overwrite an existing tablegen.yaml or .env")
    .action(async (dir: string, options) => {
      // Commands load their modules when they run, so that --help and usage errors answer fast.
      const { init } = await import("./init.ts");
      const { shownPath } = await import("./paths.ts");
      const written = await init(dir, options, Boolean(process.stdin.isTTY));
      console.log(`Wrote ${written.map((path) => shownPath(path)).join(", ")}`);
      const cd = resolve(dir) === process.cwd() ? "" : `cd ${shownPath(resolve(dir))} && `;
      console.log(`Next: ${cd}${NEXT_STEPS()}`);
    });

  cli
    .command("ai")
    .description("draft a manifest from a description of the app with an AI model")
    .argument("<prompt>", "what the application does")
    .option("--out <file>", "manifest to write", DEFAULT_MANIFEST)
    .option("--model <name>", "model name (default: $TABLEGEN_AI_MODEL or gpt-4.1-mini)")
    .option("--timeout <seconds>", "give up on a request to the model after this many seconds", "60")
    .option("--max-repairs <n>", "how many times invalid drafts are sent back for repair", "2")
    .option("-y, --yes", "write the draft without asking")
    .option("--force", "overwrite an existing manifest")
    .action(async (prompt: string, options: AiCommandOptions) => {
      const { ai } = await import("./ai.ts");
      const { shownPath } = await import("./paths.ts");
      const written = await ai(prompt, options, Boolean(process.stdin.isTTY));
      console.log(`Wrote ${written.map((path) => shownPath(path)).join(", ")}`);
      const shown = shownPath(written[0]!);
      console.log(`Next: ${NEXT_STEPS(shown === DEFAULT_MANIFEST ? "" : ` --manifest ${shown}`)}`);
    });

  cli
    .command("generate")
    .description("write the standalone server for the manifest")
    .option("--manifest <file>", "manifest to read", DEFAULT_MANIFEST)
    .option("--out <dir>", "directory of the generated server", DEFAULT_OUT)
    .option("--check", "write nothing; exit 1 listing the files that differ from what the manifest generates")
    .option("--force", "overwrite files in the output directory that tablegen did not write")
    .option(
      "--allow-breaking <vN>",
      "accept breaking changes to this published version (repeatable; or v1,v2)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (options: GenerateOptions) => {
      const { generate } = await import("./generate.ts");
      const result = await generate(options);
      console.log(result.summary);
      for (const warning of result.warnings ?? []) console.error(warning);
      if (!result.ok) outcome.exitCode = 1;
    });

  cli
    .command("migrate")
    .description("write a migration for the manifest's changes and apply pending migrations to DATABASE_URL")
    .option("--manifest <file>", "manifest to read", DEFAULT_MANIFEST)
    .option("--out <dir>", "directory of the generated server", DEFAULT_OUT)
    .option("--name <label>", "label of the new migration")
    .option("--create-only", "write the migration without applying it")
    .option("--accept-data-loss", "allow a change that drops or narrows data")
    .action(async (options: MigrateOptions) => {
      const { migrate } = await import("./migrate.ts");
      await migrate(options, Boolean(process.stdin.isTTY), (line) => console.log(line));
    });

  const keys = cli
    .command("keys")
    .description("keys to hand out, each with a scope, an expiry and a rate limit, in the .env beside the manifest");
  keys
    .command("new")
    .description("add a key to the .env and print its secret, once")
    .argument("<name>", "the key's name: lower-case letters, digits and _ (its variable is API_KEY_<NAME>)")
    .requiredOption(
      "--scope <scope>",
      'what it may do: <table|query|*>[@<version>]:<action>, comma-separated, e.g. "posts:read,comments:write"; ' +
        "actions list, show, create, update, delete, read (list, show, queries), write (all)",
    )
    .option("--expires <when>", "when it stops working: a duration (90d, 12h, 2w) or a date (2027-01-01)")
    .option("--limit <rate>", "at most so many requests per sec, min, hour or day, e.g. 100/min")
    .option("--manifest <file>", "the manifest beside whose .env the key goes", DEFAULT_MANIFEST)
    .action(async (name: string, options: Omit<KeyRequest, "name"> & KeysOptions) => {
      const { createKey, describeKey } = await import("./keys.ts");
      const { shownPath } = await import("./paths.ts");
      const { file, key, secret } = createKey({ ...options, name }, options);
      console.error(`Added the key ${name} to ${shownPath(file)} (${key.variable}): ${describeKey(key)}.`);
      console.error("Its secret, shown this once (clients send it in X-API-SIGNATURE; the file keeps its hash only):");
      console.log(secret);
      console.error("Restart the server to use it.");
    });
  keys
    .command("list")
    .description("list the keys of the .env: names, scopes, limits, expiry (never a secret)")
    .option("--manifest <file>", "the manifest beside whose .env the keys are", DEFAULT_MANIFEST)
    .action(async (options: KeysOptions) => {
      const { listKeys } = await import("./keys.ts");
      const { keyTable } = await import("../keys/keys.ts");
      const { shownPath } = await import("./paths.ts");
      const { file, keys, stale } = listKeys(options);
      if (keys.length === 0) console.log(`${shownPath(file)} has no keys: API_SIGNATURE_KEY alone, with full access.`);
      else console.log(keyTable(keys, Date.now()));
      for (const { at } of stale) console.error(`warning: ${at}: the server will not start with it`);
    });
  keys
    .command("revoke")
    .description("remove a key from the .env")
    .argument("<name>", "the key's name")
    .option("--manifest <file>", "the manifest beside whose .env the key is", DEFAULT_MANIFEST)
    .action(async (name: string, options: KeysOptions) => {
      const { revokeKey } = await import("./keys.ts");
      const { shownPath } = await import("./paths.ts");
      const { file, variable } = revokeKey(name, options);
      console.log(
        `Revoked the key ${name}: removed ${variable} from ${shownPath(file)}. Restart the server for it to take effect.`,
      );
    });

  cli
    .command("studio")
    .description("serve the studio on 127.0.0.1: a local dashboard for the projects in a folder (or the project it is)")
    .argument("[dir]", "a project folder, or a folder of projects", ".")
    .option("--port <port>", "port to serve on (default: a free one)")
    .option("--open", "open the studio in the default browser")
    .action(async (dir: string, options: StudioCommandOptions) => {
      const { studio } = await import("../studio/index.ts");
      await studio(dir, options, (line) => console.log(line));
    });

  return cli;
}

/** Runs the CLI (`argv` as in `process.argv`); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const outcome: Outcome = { exitCode: 0 };
  const cli = program(outcome);
  try {
    await cli.parseAsync(argv);
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    const debug = argv.includes("--debug");
    if (error instanceof UserError && !debug) {
      console.error(`tablegen: ${error.message}`);
    } else if (isPromptCancel(error)) {
      console.error("tablegen: cancelled");
    } else if (debug) {
      console.error(error);
    } else {
      console.error(
        `tablegen: unexpected error: ${(error as Error).message ?? String(error)} (run with --debug for details)`,
      );
    }
    return 1;
  }
}

function isPromptCancel(error: unknown): boolean {
  return error instanceof Error && error.name === "ExitPromptError";
}
