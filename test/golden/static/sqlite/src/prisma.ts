import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { databaseUrl } from "./config.js";
import { PrismaClient } from "./generated/prisma/client.js";

/**
 * A typed Prisma Client on the server's database, for hand-written code (scripts, jobs,
 * extra routes). The generated routes do not use it: they run prepared SQL on the driver.
 */
export const prisma = new PrismaClient({ adapter: new PrismaBetterSQLite3({ url: databaseUrl() }) });
