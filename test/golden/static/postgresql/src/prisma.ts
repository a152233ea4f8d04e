import { PrismaPg } from "@prisma/adapter-pg";
import { databaseUrl } from "./config.js";
import { PrismaClient } from "./generated/prisma/client.js";

/**
 * A typed Prisma Client on the server's database, for hand-written code (scripts, jobs,
 * extra routes). The generated routes do not use it: they run prepared SQL on the driver.
 */
export const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl() }) });
