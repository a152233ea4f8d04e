import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { client, failure, type Client } from "./helpers/http.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// Issue 16: a custom query's NUMBER parameter is read as a JSON body's numbers are (`1e3` is 1000),
// as list filters read theirs; the crm example's pipeline query over HTTP on both databases.

const KEY = "query-numbers-key";
const postgresUrl = inject("postgresUrl");
type Envelope<T> = { success: boolean; message: string; data: T };

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(!postgresUrl && database === "postgresql")(`a query's NUMBER parameter on ${database}`, () => {
    let server: RunningServer;
    let api: Client;

    beforeAll(async () => {
      const { dir } = await sharedExample("crm", database);
      const db = await exampleDatabase("crm", database);
      server = await startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY });
      api = client(`${server.url}/crm`, KEY);
      const created = async (path: string, body: Record<string, unknown>) => {
        const answer = await api.post(path, body);
        expect(answer.status, answer.text).toBe(201);
        return (answer.body as Envelope<{ id: number }>).data.id;
      };
      const company = await created("/companies/v1/create", { name: "Acme" });
      const contact = await created("/contacts/v1/create", { company_id: company, full_name: "Ada" });
      for (const amount of [500, 1000, 2500])
        await created("/deals/v1/create", { contact_id: contact, title: `deal ${amount}`, amount });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it("accepts every JSON form of a number, and the same rows for each", async () => {
      const plain = await api.get("/v1/pipeline?min_amount=1000");
      expect(plain.status, plain.text).toBe(200);
      expect((plain.body as Envelope<{ deals: unknown }[]>).data).toHaveLength(1);
      for (const written of ["1e3", "1E3", "1000.0", "10e2", "1.0e+3"]) {
        const answer = await api.get(`/v1/pipeline?min_amount=${encodeURIComponent(written)}`);
        expect(answer.status, written).toBe(200);
        expect(answer.body).toEqual(plain.body);
      }
    });

    it("refuses what JSON refuses", async () => {
      for (const written of ["+1000", "01000", ".5", "1e", "x"]) {
        const answer = await api.get(`/v1/pipeline?min_amount=${encodeURIComponent(written)}`);
        expect(answer.status, written).toBe(400);
        expect(answer.body).toEqual(failure("Invalid request: min_amount must be a number"));
      }
    });
  });
}
