-- Written by tablegen: a migration never changes once applied.
PRAGMA foreign_keys=OFF;
BEGIN IMMEDIATE;

-- CreateTable
CREATE TABLE "index" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "body" TEXT
);

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.
CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));
INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;
DROP TABLE _tablegen_foreign_key_check;
COMMIT;
PRAGMA foreign_keys=ON;
