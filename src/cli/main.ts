import { Command, CommanderError, Option } from "commander";
import { UserError } from "../errors.ts";
import { init } from "./init.ts";
import { generate } from "./generate.ts";

const DEFAULT_MANIFEST = "tablegen.yaml";
const DEFAULT_OUT = "server";

function program(): Command {
  const cli = new Command("tablegen")
    .description("Generate a standalone REST server (Fastify, Prisma, SQLite or PostgreSQL) from a table manifest.")
    .option("--debug", "show stack traces of errors")
    .showHelpAfterError()
    .exitOverride();

  cli
    .command("init")
    .description("scaffold a project: a starter tablegen.yaml and a .env with a fresh API signature key")
    .argument("[dir]", "directory to create the project in", ".")
    .option("--name <name>", "project name (first URL segment)")
    .addOption(new Option("--db <database>", "database").choices(["sqlite", "postgresql"]))
    .option("--ai <prompt>", "draft the tables with the AI generator from a description of the app")
    .option("-y, --yes", "use defaults instead of asking")
    .option("--force", "overwrite an existing tablegen.yaml or .env")
    .action(async (dir: string, options) => {
      const written = await init(dir, options, Boolean(process.stdin.isTTY));
      console.log(`Wrote ${written.map((path) => relativeToCwd(path)).join(", ")}`);
      console.log("Next: tablegen generate && tablegen migrate, then npm start in the generated server.");
    });

  cli
    .command("ai")
    .description("draft a manifest from a description of the app with an AI model")
    .argument("<prompt>", "what the application does")
    .option("--out <file>", "manifest to write", DEFAULT_MANIFEST)
    .option("--model <name>", "model name (default: $TABLEGEN_AI_MODEL or gpt-4.1-mini)")
    .option("--timeout <seconds>", "give up on the model after this many seconds", "60")
    .option("--max-repairs <n>", "how many times invalid drafts are sent back for repair", "2")
    .option("-y, --yes", "write the draft without asking")
    .option("--force", "overwrite an existing manifest")
    .action(() => {
      throw new UserError("ai: not implemented yet");
    });

  cli
    .command("generate")
    .description("write the standalone server for the manifest")
    .option("--manifest <file>", "manifest to read", DEFAULT_MANIFEST)
    .option("--out <dir>", "directory of the generated server", DEFAULT_OUT)
    .option("--check", "write nothing; exit 1 listing the files that differ from what the manifest generates")
    .action(async (options: { manifest: string; out: string; check?: boolean }) => {
      const result = await generate(options);
      console.log(result.summary);
      if (!result.ok) process.exitCode = 1;
    });

  cli
    .command("migrate")
    .description("write a migration for the manifest's changes and apply pending migrations to DATABASE_URL")
    .option("--manifest <file>", "manifest to read", DEFAULT_MANIFEST)
    .option("--out <dir>", "directory of the generated server", DEFAULT_OUT)
    .option("--name <label>", "label of the new migration")
    .option("--create-only", "write the migration without applying it")
    .option("--accept-data-loss", "allow a change that drops or narrows data")
    .action(() => {
      throw new UserError("migrate: not implemented yet");
    });

  return cli;
}

function relativeToCwd(path: string): string {
  const cwd = process.cwd() + "/";
  return path.startsWith(cwd) ? path.slice(cwd.length) : path;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const cli = program();
  try {
    await cli.parseAsync(argv);
    return Number(process.exitCode ?? 0);
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
      console.error(`tablegen: unexpected error: ${(error as Error).message ?? String(error)} (run with --debug for details)`);
    }
    return 1;
  }
}

function isPromptCancel(error: unknown): boolean {
  return error instanceof Error && error.name === "ExitPromptError";
}
