// Run by bench/startup.ts inside a generated server (cwd), as plain JavaScript after its transpile:
// the CPU time (user + system, this process) of each phase of the server's start, as JSON on one
// line. The phases follow dist/server.js, with the big packages imported first to be counted apart.
import { pathToFileURL } from "node:url";

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const phases = { boot: cpu() };
let last = phases.boot;
const mark = (name) => {
  const now = cpu();
  phases[name] = now - last;
  last = now;
};
const local = (path) => import(pathToFileURL(`${process.cwd()}/${path}`).href);

await import("fastify");
mark("import fastify");
await import("better-sqlite3");
mark("import better-sqlite3");
const { buildApp } = await local("dist/app.js");
const { loadConfig } = await local("dist/config.js");
const { openDatabase } = await local("dist/db.js");
const { loadEnvFile } = await local("dist/env.js");
mark("the server's modules");
loadEnvFile();
const config = loadConfig();
const db = openDatabase(config);
mark("config, database");
const app = await buildApp(config, db);
mark("buildApp (plugins, routes)");
await app.ready();
mark("ready");
await app.listen({ host: "127.0.0.1", port: 0 });
mark("listen");
phases.total = cpu();
console.log(JSON.stringify(phases));
await app.close();
