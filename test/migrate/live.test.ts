import { join } from "node:path";
import { setTimeout as pause } from "node:timers/promises";
import Database from "better-sqlite3";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/generate.ts";
import { FIRST, postgresUrl, migratedProject, serve, tablegen, type Envelope } from "./scenario.ts";

// `tablegen migrate` while the server runs: an additive change applies under load and the running
// server answers every request meanwhile; a change the old server may fail on is named before it is
// applied; on SQLite, a write lock held too long is one clear message, and nothing is applied.

const GROWN = FIRST.replace(
  "      notes: { type: TEXT, maxLength: 20 }\n",
  "      notes: { type: TEXT, maxLength: 20 }\n      city: TEXT\n      vip: { type: BOOLEAN, required: true, default: false }\n",
).concat("  coupons:\n    fields:\n      code: { type: TEXT, required: true, unique: true }\n");

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`migrate on a live ${database} server`, () => {
    it("applies an additive change under load, with no failed request before, during or after it", async (context) => {
      const { dir, db, write } = await migratedProject(database, FIRST);
      const { api } = await serve(dir, db, context);
      const first = (await api.post("/customers/v1/create", { name: "Ada" })).body as Envelope<{ id: number }>;

      // Four clients reading and writing without pause, from before the migration to after it.
      let running = true;
      const statuses: number[] = [];
      // Resolved once that many answers have come: the load is counted in answers, not in time.
      let awaited: { count: number; resolve: () => void } | undefined;
      const answered = (count: number) =>
        new Promise<void>((resolve) => {
          awaited = { count, resolve };
          if (statuses.length >= count) resolve();
        });
      const client = async (worker: number) => {
        for (let request = 0; running; request++) {
          const answer =
            request % 3 === 0
              ? await api.post("/customers/v1/create", { name: `C${worker}-${request}` })
              : request % 3 === 1
                ? await api.get(`/customers/v1/show/${first.data.id}`)
                : await api.get("/customers/v1/list?limit=20");
          statuses.push(answer.status);
          if (awaited && statuses.length >= awaited.count) awaited.resolve();
          // Paced: steady traffic all through the migration, not the two cores' worth of it.
          await pause(20);
        }
      };
      const load = Promise.all([0, 1, 2, 3].map(client));
      await answered(20);

      await write(GROWN);
      // As a user runs it beside a live server: a process of its own, so that the clients' answers
      // keep coming while it runs (in this process, a quick migration could end before the next one).
      const migrated = await execa(process.execPath, [join(REPO, "bin/tablegen.js"), "migrate"], {
        cwd: dir,
        env: { DATABASE_URL: "" },
        reject: false,
      });
      expect(migrated.exitCode, migrated.stderr).toBe(0);
      expect(migrated.stdout).toContain("Applied pending migrations");
      expect(migrated.stdout).not.toContain("Note:");
      const during = statuses.length;
      await answered(during + 20);
      running = false;
      await load;

      expect(during).toBeGreaterThan(20);
      expect(statuses.length).toBeGreaterThan(during);
      expect(statuses.filter((status) => status !== 200 && status !== 201)).toEqual([]);
    });

    it("names the changes a server still running the old code may fail on, before applying them", async () => {
      const { dir, write } = await migratedProject(database, FIRST);
      await write(
        FIRST.replace("      phone: PHONE\n", "").replace(
          "      total: NUMBER\n",
          "      total: { type: NUMBER, integer: true }\n",
        ),
      );
      const migrated = await tablegen(["migrate", "--accept-data-loss"], dir);
      expect(migrated.exitCode, migrated.stderr).toBe(0);
      const note = migrated.stdout.indexOf(
        "Note: until it is restarted onto the new schema, a server still running the previous code may fail on: customers.phone: field removed; orders.total: type changed.",
      );
      expect(note, migrated.stdout).toBeGreaterThan(-1);
      expect(note).toBeLessThan(migrated.stdout.indexOf("Applied pending migrations"));
    });

    it.runIf(database === "sqlite")(
      "says the database is locked, and applies nothing, when a write holds it past the wait",
      async () => {
        const { dir, write } = await migratedProject(database, FIRST);
        const holder = new Database(join(dir, "server", "live.db"));
        holder.exec("BEGIN IMMEDIATE");
        try {
          await write(GROWN);
          const migrated = await tablegen(["migrate"], dir);
          expect(migrated.exitCode).toBe(1);
          expect(migrated.stderr).toBe(
            "tablegen: no migration was applied: the database is locked by another process: a write held it for over 10 seconds",
          );
        } finally {
          holder.exec("COMMIT");
          holder.close();
        }
        // The migration folder it wrote is gone with it; the next run, unhindered, applies the change.
        const again = await tablegen(["migrate"], dir);
        expect(again.exitCode, again.stderr).toBe(0);
        expect(again.stdout).toContain("coupons: table added");
      },
    );
  });
}
