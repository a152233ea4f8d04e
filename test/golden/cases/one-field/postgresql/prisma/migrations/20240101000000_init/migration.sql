-- Written by tablegen: a migration never changes once applied.
BEGIN;

-- CreateTable
CREATE TABLE "index" (
    "id" SERIAL NOT NULL,
    "body" TEXT,

    CONSTRAINT "index_pkey" PRIMARY KEY ("id")
);

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

COMMIT;
