/** Value formats of the contract, given to Fastify's validator (Ajv) as named formats. */

/**
 * The checks of the contract's own formats as regular expressions (JSON Schema `pattern`s): the
 * server's check is the expression, and the OpenAPI documents give it as the format's `pattern`, so
 * a tool reading a document accepts and makes exactly the values the server does.
 */
export const FORMAT_PATTERNS = {
  /** Something, `@`, a domain of at least two labels; no spaces. */
  email: "^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$",
  /** An optional `+`, then 7 to 15 digits, with spaces, dots, dashes and parentheses between them. */
  phone: "^\\+?(?:[ ().-]*[0-9]){7,15}[ ().-]*$",
  /** A bigint id or reference: a string of digits, perhaps negative; the server also checks it fits in 64 bits. */
  int64: "^-?[0-9]+$",
} as const;

// With the `u` flag, as Ajv compiles a `pattern`.
const EMAIL = new RegExp(FORMAT_PATTERNS.email, "u");
const PHONE = new RegExp(FORMAT_PATTERNS.phone, "u");
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

export function isPhone(value: string): boolean {
  return PHONE.test(value);
}

/** The first and last instants both databases store: years 0001 to 9999, in UTC. */
const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * RFC 3339 with a time zone: `T` or space, `Z`/`z` or ±hh:mm, a real calendar date, at an instant
 * of the years 0001 to 9999 in UTC (`0001-01-01T00:30:00+01:00` is not one).
 */
export function isDateTime(value: string): boolean {
  const match = DATETIME.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetValid = match[9] === undefined || (Number(match[9]) < 24 && Number(match[10]) < 60);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offsetValid &&
    inStoredYears(value)
  );
}

function inStoredYears(value: string): boolean {
  const instant = Date.parse(value.replace(" ", "T").toUpperCase());
  return instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
}

const INT64 = new RegExp(FORMAT_PATTERNS.int64, "u");
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A 64-bit integer (PostgreSQL's bigint) as a string of digits, as the API exchanges bigint ids. */
export function isInt64(value: string): boolean {
  if (!INT64.test(value)) return false;
  // Twenty characters hold every int8 (and a sign); longer text is out of range, whatever it says.
  if (value.length > 20) return false;
  const number = BigInt(value);
  return number >= INT64_MIN && number <= INT64_MAX;
}

/** By their JSON Schema names: the schemas the server compiles and its OpenAPI documents name them so. */
export const formats = {
  email: isEmail,
  phone: isPhone,
  "date-time": isDateTime,
  uuid: UUID,
  int64: isInt64,
};
