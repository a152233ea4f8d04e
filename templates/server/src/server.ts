// First: what it does must happen before anything else runs (src/ticks.ts).
import "./ticks.js";
import { constants } from "node:os";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";
import { closeDatabase, openDatabase } from "./db.js";
import { loadEnvFile } from "./env.js";
import { openLog } from "./log.js";

loadEnvFile();

try {
  const config = loadConfig();
  // Log lines wait in a buffer (src/log.ts), written at the latest as the process exits.
  const log = openLog(config);
  let app: FastifyInstance | undefined;

  const shutdown = async (signal: NodeJS.Signals) => {
    // Stopped while starting: the process exits as the signal would end it, its lines written.
    if (app === undefined) return process.exit(128 + constants.signals[signal]);
    app.log.info(`${signal} received: finishing in-flight requests`);
    // Keep-alive connections become idle as their last request finishes: close them as they do.
    const sweep = setInterval(() => app!.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(sweep);
    await closeDatabase(db);
    log.flush();
    // A cluster worker (npm run cluster) also leaves the primary's channel, which would keep it alive.
    if (process.connected) process.disconnect();
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  const db = openDatabase(config);
  app = await buildApp(config, db, log);
  const address = await app.listen({ host: config.host, port: config.port });
  // What was logged while starting comes before this line.
  log.flush();
  console.log(`Listening on ${address}`);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exitCode = 1;
}
