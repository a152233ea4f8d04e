import { buildApp } from "./app.js";
import { ConfigError, loadConfig } from "./config.js";
import { closeDatabase, openDatabase } from "./db.js";
import { loadEnvFile } from "./env.js";

loadEnvFile();

try {
  const config = loadConfig();
  const db = openDatabase(config);
  const app = await buildApp(config, db);

  const shutdown = async (signal: string) => {
    app.log.info(`${signal} received: finishing in-flight requests`);
    // Keep-alive connections become idle as their last request finishes: close them as they do.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(sweep);
    await closeDatabase(db);
    // A cluster worker (npm run cluster) also leaves the primary's channel, which would keep it alive.
    if (process.connected) process.disconnect();
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  const address = await app.listen({ host: config.host, port: config.port });
  console.log(`Listening on ${address}`);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Cannot start: ${error.message}`);
  process.exitCode = 1;
}
