-- Written by tablegen: a migration never changes once applied.
BEGIN;

-- CreateTable
CREATE TABLE "customers" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "email" VARCHAR(254) NOT NULL,
    "phone" VARCHAR(32) NOT NULL DEFAULT '+1 555 0100',
    "status" VARCHAR(255) DEFAULT 'active',
    "legacy_code" VARCHAR(255),
    "tier" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notes" (
    "id" SERIAL NOT NULL,
    "text" VARCHAR(255) NOT NULL,

    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "customers_email_key" ON "customers"("email");

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

COMMIT;
