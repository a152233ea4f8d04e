import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readManifestFile } from "../../src/cli/host.ts";
import { diffSchemas } from "../../src/cli/prisma/engine.ts";
import { firstMigrationSql } from "../../src/emit/first-migration.ts";
import { emitPrismaSchema } from "../../src/emit/prisma-schema.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { DATABASES } from "../../src/manifest/schema.ts";
import { buildModel } from "../../src/model/build.ts";
import { REPO } from "../helpers/generate.ts";

// generate writes a new server's first migration without a Prisma process: its SQL must be what
// `prisma migrate diff --from-empty` writes for the same schema, byte for byte (after the trim
// emitMigration makes), on every example and golden case, a manifest in the synthetic benchmark's
// shape, and edge cases; and nothing for what it cannot vouch for, which Prisma then computes.

const manifestOf = (file: string) => readManifestFile(join(REPO, file)).manifest;
const CASES = ["indexes", "long-names", "no-queries", "one-field", "self-reference", "uuid-reference", "versions"];

/** 60 tables as bench/synthetic.ts makes them: every field type, references of each kind, uuid ids. */
function synthetic(): RawManifest {
  const name = (i: number) => `table_${String(i).padStart(3, "0")}`;
  const tables: Record<string, unknown> = {};
  for (let i = 1; i <= 60; i++) {
    const onDelete = (["cascade", "restrict", "setNull"] as const)[i % 3]!;
    tables[name(i)] = {
      ...(i % 10 === 0 && { id: "uuid" }),
      fields: {
        name: { type: "TEXT", required: true },
        code: { type: "TEXT", required: true, unique: true, maxLength: 40 },
        notes: "PARAGRAPH",
        amount: "NUMBER",
        quantity: { type: "NUMBER", integer: true, default: -3 },
        active: { type: "BOOLEAN", default: true },
        created_at: { type: "DATETIME", default: "now" },
        ...(i % 3 === 0 && { email: { type: "EMAIL", unique: true } }),
        ...(i % 4 === 0 && { phone: { type: "PHONE", index: true } }),
        ...(i > 1 && {
          [`${name(i - 1)}_id`]: {
            type: "NUMBER",
            required: onDelete !== "setNull",
            references: name(i - 1),
            onDelete,
          },
        }),
        // Two references to the same table, and one to itself.
        ...(i % 7 === 0 && {
          first_id: { type: "NUMBER", references: name(1), onDelete: "setNull" },
          again_id: { type: "NUMBER", references: name(1), onDelete: "setNull" },
          parent_id: { type: "NUMBER", references: name(i), onDelete: "setNull" },
        }),
      },
      ...(i % 5 === 0 && { indexes: [["name", "active"]] }),
    };
  }
  return { project: "synthetic", database: "sqlite", versions: ["v1"], tables } as unknown as RawManifest;
}

const manifests: [string, RawManifest][] = [
  ...["blog", "crm", "tasks"].map((name) => [`examples/${name}.yaml`, manifestOf(`examples/${name}.yaml`)] as const),
  ...CASES.map((name) => [`cases/${name}.yaml`, manifestOf(`test/golden/cases/${name}.yaml`)] as const),
  ["60 synthetic tables", synthetic()],
] as [string, RawManifest][];

describe.each(DATABASES)("the first migration's SQL on %s", (database) => {
  it.each(manifests)("is Prisma's for %s", async (_, manifest) => {
    const model = buildModel({ ...manifest, database });
    const prisma = await diffSchemas(undefined, emitPrismaSchema(model));
    expect(firstMigrationSql(model)?.trim()).toBe(prisma.trim());
  });

  it("is left to Prisma for defaults it might write otherwise", () => {
    const withDefault = (field: object) =>
      buildModel({ project: "edge", database, tables: { things: { fields: { value: field } } } } as RawManifest);
    expect(firstMigrationSql(withDefault({ type: "TEXT", default: "it's" }))).toBeUndefined();
    expect(firstMigrationSql(withDefault({ type: "TEXT", default: "a\\b" }))).toBeUndefined();
    expect(firstMigrationSql(withDefault({ type: "TEXT", default: "é" }))).toBeUndefined();
    expect(firstMigrationSql(withDefault({ type: "NUMBER", default: 1.5 }))).toBeUndefined();
    expect(firstMigrationSql(withDefault({ type: "NUMBER", default: 2 }))).toBeUndefined();
    expect(firstMigrationSql(withDefault({ type: "NUMBER", integer: true, default: 2 }))).toContain("DEFAULT 2");
  });
});
