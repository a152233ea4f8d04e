-- Written by tablegen: a migration never changes once applied.
PRAGMA foreign_keys=OFF;
BEGIN IMMEDIATE;

-- CreateTable
CREATE TABLE "users" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "phone" TEXT,
    "bio" TEXT,
    "active" BOOLEAN DEFAULT true,
    "created_at" DATETIME DEFAULT (strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now'))
);

-- CreateTable
CREATE TABLE "posts" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "title" TEXT NOT NULL,
    "body" TEXT,
    "published" BOOLEAN DEFAULT false,
    "rating" REAL,
    "user_id" INTEGER NOT NULL,
    "category_id" TEXT,
    "published_at" DATETIME,
    CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "posts_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "categories" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "comments" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "post_id" INTEGER NOT NULL,
    "author" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    CONSTRAINT "comments_post_id_fkey" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "posts_user_id_idx" ON "posts"("user_id");

-- CreateIndex
CREATE INDEX "posts_category_id_idx" ON "posts"("category_id");

-- CreateIndex
CREATE UNIQUE INDEX "categories_name_key" ON "categories"("name");

-- CreateIndex
CREATE INDEX "comments_post_id_idx" ON "comments"("post_id");

-- Recorded as finished in the same transaction (tablegen): a killed migrate leaves it applied and recorded, or neither.
UPDATE "_prisma_migrations" SET "finished_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'), "applied_steps_count" = 1
WHERE "migration_name" = '20240101000000_init' AND "finished_at" IS NULL AND "rolled_back_at" IS NULL;

-- Every reference must still point at a row, or the CHECK fails and nothing above is kept.
CREATE TEMP TABLE _tablegen_foreign_key_check (violations INTEGER CHECK (violations = 0));
INSERT INTO _tablegen_foreign_key_check SELECT count(*) FROM pragma_foreign_key_check;
DROP TABLE _tablegen_foreign_key_check;
COMMIT;
PRAGMA foreign_keys=ON;
