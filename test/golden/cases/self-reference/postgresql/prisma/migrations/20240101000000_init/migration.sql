-- Written by tablegen: a migration never changes once applied.
BEGIN;

-- CreateTable
CREATE TABLE "people" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "manager_id" INTEGER,

    CONSTRAINT "people_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "people_manager_id_idx" ON "people"("manager_id");

-- AddForeignKey
ALTER TABLE "people" ADD CONSTRAINT "people_manager_id_fkey" FOREIGN KEY ("manager_id") REFERENCES "people"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = now(), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

COMMIT;
