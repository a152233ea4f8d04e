-- Written by tablegen: a migration never changes once applied.
PRAGMA foreign_keys=OFF;
BEGIN IMMEDIATE;

-- CreateTable
CREATE TABLE "products" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "contact" TEXT,
    "phone" TEXT,
    "description" TEXT,
    "price" REAL NOT NULL,
    "stock" INTEGER DEFAULT 0,
    "active" BOOLEAN DEFAULT true,
    "added_at" DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now')),
    "launch_at" DATETIME DEFAULT '2024-01-31T12:00:00.000+00:00'
);

-- CreateTable
CREATE TABLE "reviews" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "product_id" INTEGER NOT NULL,
    "stars" INTEGER NOT NULL,
    CONSTRAINT "reviews_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "products" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "products_contact_key" ON "products"("contact");

-- CreateIndex
CREATE INDEX "reviews_product_id_idx" ON "reviews"("product_id");

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.
CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));
INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;
DROP TABLE _tablegen_foreign_key_check;
COMMIT;
PRAGMA foreign_keys=ON;
