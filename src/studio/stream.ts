import { PassThrough } from "node:stream";
import type { FastifyReply } from "fastify";
import { UserError } from "../errors.ts";
import type { StreamEvent } from "./protocol.ts";
import { Conflict } from "./workspace.ts";

/** How a long step tells the browser where it is. */
export interface Progress {
  step(text: string): void;
  problems(problems: readonly string[]): void;
}

/**
 * Answers with a long step's progress as it happens: one JSON event a line (NDJSON), ending with
 * `done` and the step's result, or `error` and the one clear message the CLI would print.
 */
export function streamed(reply: FastifyReply, work: (progress: Progress) => Promise<unknown>): FastifyReply {
  const stream = new PassThrough();
  const send = (event: StreamEvent) => stream.write(`${JSON.stringify(event)}\n`);
  const progress: Progress = {
    step: (text) => send({ type: "progress", text }),
    problems: (problems) => send({ type: "problems", problems: [...problems] }),
  };
  void work(progress).then(
    (result) => {
      send({ type: "done", result });
      stream.end();
    },
    (error: unknown) => {
      send({ type: "error", message: errorMessage(error) });
      stream.end();
    },
  );
  return reply.type("application/x-ndjson; charset=utf-8").send(stream);
}

/** An error as the CLI says it: a user error's message, anything else as unexpected. */
export function errorMessage(error: unknown): string {
  if (error instanceof UserError) return error.message;
  return `unexpected error: ${(error as Error)?.message ?? String(error)}`;
}

/** One long step at a time per project: a second one is refused while the first runs. */
export class Steps {
  private readonly running = new Map<string, string>();

  /** Takes the project for `what`, or refuses with a 409 naming what runs. */
  take(id: string, what: string): () => void {
    const current = this.running.get(id);
    if (current) throw new Conflict(`${id} is busy: ${current} is under way; try again when it has finished`);
    this.running.set(id, what);
    return () => this.running.delete(id);
  }

  /** `work` with the project taken for it. */
  async with<T>(id: string, what: string, work: () => Promise<T>): Promise<T> {
    const release = this.take(id, what);
    try {
      return await work();
    } finally {
      release();
    }
  }
}
