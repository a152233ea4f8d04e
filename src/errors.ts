/** A problem the user can fix: printed as one clear message, exit code 1, no stack trace. */
export class UserError extends Error {
  override readonly name = "UserError";
}
