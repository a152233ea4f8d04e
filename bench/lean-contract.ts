// What the two lean ceilings (bench/lean.ts on better-sqlite3, bench/lean-pg.ts on pg) share: the contract's
// side of them, apart from the database: the key check, error logging, the formats and JSON schemas of the
// users table, the envelope and the refusal type. Bundled into each (bench/lib.ts transpileCeiling).
import { timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";

/** The keys of API_SIGNATURE_KEY (comma-separated), as bytes. */
export function signatureKeys(env: NodeJS.ProcessEnv): Buffer[] {
  const keys = (env.API_SIGNATURE_KEY ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0)
    .map((key) => Buffer.from(key, "utf8"));
  if (keys.length === 0) throw new Error("API_SIGNATURE_KEY is not set");
  return keys;
}

export const UNAUTHORIZED = JSON.stringify({
  success: false,
  message: "Invalid or missing API signature key",
  data: [],
});

/** Whether a header holds one of the keys: every key compared, in time that depends on no key's bytes. */
export function signedWith(keys: Buffer[]) {
  return (header: string | string[] | undefined): boolean => {
    const presented = Buffer.from(typeof header === "string" ? header : "", "utf8");
    let valid = false;
    for (const key of keys) {
      // Buffers of unequal length: compare the key with itself, so both branches cost the same.
      const same = presented.length === key.length ? timingSafeEqual(presented, key) : !timingSafeEqual(key, key);
      valid = same || valid;
    }
    return valid;
  };
}

/** Errors only, one JSON line each on stderr (pino's shape), unless LOG_LEVEL is above error. */
export function errorLog(env: NodeJS.ProcessEnv) {
  const logErrors = !["fatal", "silent"].includes(env.LOG_LEVEL ?? "");
  return (error: Error, request: FastifyRequest) => {
    if (!logErrors) return;
    const err = { type: error.name, message: error.message, stack: error.stack };
    process.stderr.write(
      JSON.stringify({
        level: 50,
        time: Date.now(),
        method: request.method,
        url: request.url,
        err,
        msg: "request failed",
      }) + "\n",
    );
  };
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const PHONE = /^\+?[0-9 ().-]+$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const FIRST_INSTANT = Date.parse("0001-01-01T00:00:00Z");
const LAST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");
function isDateTime(value: string): boolean {
  const m = DATETIME.exec(value);
  if (!m) return false;
  const month = +m[2]!;
  const day = +m[3]!;
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(+m[1]!, month, 0)).getUTCDate()) return false;
  if (+m[4]! > 23 || +m[5]! > 59 || +m[6]! > 59) return false;
  if (m[9] !== undefined && (+m[9] > 23 || +m[10]! > 59)) return false;
  const instant = Date.parse(value.replace(" ", "T").toUpperCase());
  return instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
}
export const formats = {
  email: EMAIL,
  phone: (value: string) => PHONE.test(value) && /^(\D*\d){7,15}\D*$/.test(value),
  "date-time": isDateTime,
};

export const userRecord = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    email: { type: "string" },
    phone: { type: ["string", "null"] },
    bio: { type: ["string", "null"] },
    active: { type: ["boolean", "null"] },
    created_at: { type: ["string", "null"] },
  },
  required: ["id", "name", "email", "phone", "bio", "active", "created_at"],
} as const;

export const envelope = (data: object) => ({
  type: "object",
  properties: { success: { type: "boolean" }, message: { type: "string" }, data },
  required: ["success", "message", "data"],
});

export const userInput = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 255 },
    email: { type: "string", minLength: 1, maxLength: 254, format: "email" },
    phone: { type: ["string", "null"], maxLength: 32, format: "phone" },
    bio: { type: ["string", "null"] },
    active: { type: ["boolean", "null"] },
    created_at: { type: ["string", "null"], format: "date-time" },
  },
  required: ["name", "email"],
  additionalProperties: false,
} as const;

export interface UserInput {
  name: string;
  email: string;
  phone?: string | null;
  bio?: string | null;
  active?: boolean | null;
  created_at?: string | null;
}

export class Failure extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}
