import { expect } from "vitest";
import { UserError } from "../../src/errors.ts";

/** The message of the UserError a promise rejects with; anything else fails the test. */
export async function userErrorMessage(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UserError);
  return (error as Error).message;
}
