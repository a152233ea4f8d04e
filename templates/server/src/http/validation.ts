import type { FastifyError, FastifySchemaValidationError } from "fastify";

type Context = FastifyError["validationContext"];

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "true or false",
  object: "an object",
};

const FORMAT_NAMES: Record<string, string> = {
  email: "a valid e-mail address",
  phone: "a valid phone number",
  "date-time": "a date-time with a time zone, like 2024-01-31T12:00:00Z",
  uuid: "a UUID",
  int64: "a 64-bit integer as a string of digits",
};

/** Fastify's validation errors as the contract's problem list, one sentence each. */
export function describeValidation(errors: FastifySchemaValidationError[], context: Context): string[] {
  const problems = errors.map((error) => describe(error, context));
  return [...new Set(problems)];
}

function describe(error: FastifySchemaValidationError, context: Context): string {
  const subject = error.instancePath.slice(1).replace(/\//g, ".");
  const params = error.params as Record<string, unknown>;
  const whole = context === "querystring" ? "the query string" : "body";
  const unknown = context === "querystring" ? "unknown parameter" : "unknown field";
  switch (error.keyword) {
    case "required":
      return `${String(params.missingProperty)} is required`;
    case "additionalProperties":
      return params.additionalProperty === "id" && context === "body"
        ? "id is assigned by the server and cannot be set"
        : `${unknown} ${String(params.additionalProperty)}`;
    case "minProperties":
      return "body must name at least one field to change";
    case "type":
      if (!subject) return context === "body" ? "body must be a JSON object" : `${whole} is not valid`;
      if ((error as { data?: unknown }).data === null) return `${subject} must not be null`;
      if (context === "querystring") return `${subject} must be given once`;
      // A field with a format is named by it whatever the value's type, as list filters name it:
      // `123` and `"abc"` for a uuid are both "must be a UUID".
      return `${subject} must be ${formatName(error) ?? typeName(params.type)}`;
    case "format":
      return `${subject} must be ${formatName(error) ?? "valid"}`;
    case "maxLength":
      return `${subject} must be at most ${String(params.limit)} characters`;
    case "minLength":
      return `${subject} must not be empty`;
    case "minimum":
    case "maximum":
      return `${subject} is out of range`;
    case "pattern":
    case "enum":
      return `${subject} must be ${(error as { parentSchema?: { description?: string } }).parentSchema?.description ?? "valid"}`;
    default:
      return `${subject || whole} is not valid`;
  }
}

/** What the format of the value's schema asks for, if it has one. */
function formatName(error: FastifySchemaValidationError): string | undefined {
  const format = (error as { parentSchema?: { format?: string } }).parentSchema?.format;
  return format === undefined ? undefined : FORMAT_NAMES[format];
}

function typeName(type: unknown): string {
  const types = (Array.isArray(type) ? type : [type]).filter((name) => name !== "null").map(String);
  return types.map((name) => TYPE_NAMES[name] ?? name).join(" or ");
}
