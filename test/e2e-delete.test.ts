import { describe, it } from "vitest";
import { failure } from "./helpers/http.ts";
import { postgresUrl, project, serve, tablegen, type Envelope } from "./migrate/scenario.ts";

// Issue 16, defect 1: a delete refused with 409 names only the references that refuse it
// (`onDelete: restrict`), never those that cascade or are set to null. A member of a tool library
// with a loan (restrict), reviews and maintenance (cascade) and a note (setNull) used to be
// "referenced by loans, tool_reviews, maintenance".

const MANIFEST = `project: shop
tables:
  members:
    fields:
      name: { type: TEXT, required: true }
  loans:
    fields:
      member_id: { type: NUMBER, required: true, references: members }
  tool_reviews:
    fields:
      member_id: { type: NUMBER, required: true, references: members, onDelete: cascade }
  maintenance:
    fields:
      member_id: { type: NUMBER, required: true, references: members, onDelete: cascade }
  notes:
    fields:
      member_id: { type: NUMBER, references: members, onDelete: setNull }
  review_flags:
    fields:
      review_id: { type: NUMBER, required: true, references: tool_reviews }
`;

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`a refused delete on ${database}`, () => {
    it("names the restricting references only, and those its cascades would reach", async (context) => {
      const { expect } = context;
      const { dir, db } = await project(database, MANIFEST);
      const generated = await tablegen(["generate"], dir);
      expect(generated.exitCode, generated.stderr).toBe(0);
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      const { api } = await serve(dir, db, context);
      const create = async (table: string, body: Record<string, unknown>) => {
        const answer = await api.post(`/${table}/v1/create`, body);
        expect(answer.status, answer.text).toBe(201);
        return (answer.body as Envelope<{ id: number }>).data.id;
      };
      const member = async () => {
        const id = await create("members", { name: "Ada" });
        const review = await create("tool_reviews", { member_id: id });
        await create("maintenance", { member_id: id });
        const note = await create("notes", { member_id: id });
        return { id, review, note };
      };

      // A loan restricts; reviews, maintenance and notes do not.
      const borrower = await member();
      await create("loans", { member_id: borrower.id });
      const refused = await api.del(`/members/v1/delete/${borrower.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual(failure("Record is referenced by loans"));

      // A flag on one of the member's reviews restricts the cascade that would delete the review.
      const reviewer = await member();
      await create("review_flags", { review_id: reviewer.review });
      const through = await api.del(`/members/v1/delete/${reviewer.id}`);
      expect(through.status).toBe(409);
      expect(through.body).toEqual(failure("Record is referenced by review_flags (through tool_reviews)"));
      expect((await api.get(`/tool_reviews/v1/show/${reviewer.review}`)).status).toBe(200);

      // Both at once: each restricting reference, once.
      await create("loans", { member_id: reviewer.id });
      expect((await api.del(`/members/v1/delete/${reviewer.id}`)).body).toEqual(
        failure("Record is referenced by loans, review_flags (through tool_reviews)"),
      );

      // Cascading and nulling references alone never refuse: the delete goes through.
      const other = await member();
      const deleted = await api.del(`/members/v1/delete/${other.id}`);
      expect(deleted.status).toBe(200);
      expect((await api.get(`/tool_reviews/v1/show/${other.review}`)).status).toBe(404);
      expect(((await api.get(`/notes/v1/show/${other.note}`)).body as Envelope).data.member_id).toBeNull();
    });
  });
}
