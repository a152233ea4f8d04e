import Database from "better-sqlite3";
import { databaseUrl } from "./config.js";
import { sqliteFile } from "./db.js";
import { loadEnvFile } from "./env.js";

// Run by `npm run migrate` after the migrations: WAL is a property of the database file, so it
// is switched on once here rather than by every server process at start.
loadEnvFile();
const db = new Database(sqliteFile(databaseUrl()), { fileMustExist: true });
db.pragma("journal_mode = WAL");
db.close();
