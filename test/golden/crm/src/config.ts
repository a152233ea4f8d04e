import { readFileSync } from "node:fs";

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  signatureKeys: string[];
  bodyLimit: number;
  corsOrigins: string[];
  /** Connections to PostgreSQL this process keeps open at most. */
  poolSize: number;
  tls?: { cert: Buffer; key: Buffer };
  logLevel: string;
}

/** A configuration the server cannot start with; reported without a stack trace. */
export class ConfigError extends Error {}

const MEBIBYTE = 1024 * 1024;

export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.DATABASE_URL) throw new ConfigError("DATABASE_URL is not set: give the PostgreSQL database to use");
  return env.DATABASE_URL;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const signatureKeys = (env.API_SIGNATURE_KEY ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  if (signatureKeys.length === 0) {
    throw new ConfigError("API_SIGNATURE_KEY is not set: the server will not start without an API signature key");
  }
  return {
    host: env.HOST || "127.0.0.1",
    port: integer(env, "PORT", 3000),
    databaseUrl: databaseUrl(env),
    signatureKeys,
    bodyLimit: integer(env, "BODY_LIMIT", MEBIBYTE),
    poolSize: integer(env, "DATABASE_POOL_SIZE", 10),
    corsOrigins: (env.CORS_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter((origin) => origin.length > 0),
    ...tls(env),
    logLevel: env.LOG_LEVEL || "info",
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be a whole number, not "${value}"`);
  return Number(value);
}

function tls(env: NodeJS.ProcessEnv): Pick<Config, "tls"> {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = env;
  if (!certFile && !keyFile) return {};
  if (!certFile || !keyFile) throw new ConfigError("TLS_CERT_FILE and TLS_KEY_FILE must be set together");
  try {
    return { tls: { cert: readFileSync(certFile), key: readFileSync(keyFile) } };
  } catch (error) {
    throw new ConfigError(`cannot read the TLS certificate or key: ${(error as Error).message}`);
  }
}
