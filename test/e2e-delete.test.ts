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

// Issue 25, item 10: a version's refusals name only the tables that version has. Loans and flags
// are v2's; v1 counts them among "other records". Members differ by version (v1 calls name
// full_name), so their routes take each version's schemas; posts do not.
const VERSIONED = `project: shop
versions: [v1, v2]
tables:
  members:
    fields:
      name: { type: TEXT, required: true, names: { v1: full_name } }
  notes:
    fields:
      member_id: { type: NUMBER, required: true, references: members }
  loans:
    versions: [v2]
    fields:
      member_id: { type: NUMBER, required: true, references: members }
  reviews:
    fields:
      member_id: { type: NUMBER, required: true, references: members, onDelete: cascade }
  flags:
    versions: [v2]
    fields:
      review_id: { type: NUMBER, required: true, references: reviews }
  posts:
    fields:
      title: { type: TEXT, required: true }
  post_loans:
    versions: [v2]
    fields:
      post_id: { type: NUMBER, required: true, references: posts }
`;

for (const database of ["sqlite", "postgresql"] as const) {
  describe.skipIf(database === "postgresql" && !postgresUrl)(`a refused delete in a version on ${database}`, () => {
    it("names only the tables the version has", async (context) => {
      const { expect } = context;
      const { dir, db } = await project(database, VERSIONED);
      const generated = await tablegen(["generate"], dir);
      expect(generated.exitCode, generated.stderr).toBe(0);
      expect((await tablegen(["migrate"], dir)).exitCode).toBe(0);
      const { api } = await serve(dir, db, context);
      const create = async (path: string, body: Record<string, unknown>) => {
        const answer = await api.post(`${path}/create`, body);
        expect(answer.status, answer.text).toBe(201);
        return (answer.body as Envelope<{ id: number }>).data.id;
      };
      const refusals = async (table: string, id: number) => {
        const answers = [await api.del(`/${table}/v1/delete/${id}`), await api.del(`/${table}/v2/delete/${id}`)];
        for (const answer of answers) expect(answer.status, answer.text).toBe(409);
        return answers.map((answer) => (answer.body as Envelope).message);
      };

      // Held by a note (both versions) and a loan (v2 only).
      const both = await create("/members/v2", { name: "Ada" });
      await create("/notes/v1", { member_id: both });
      await create("/loans/v2", { member_id: both });
      expect(await refusals("members", both)).toEqual([
        "Record is referenced by notes",
        "Record is referenced by notes, loans",
      ]);
      const refused = await api.del(`/members/v1/delete/${both}`);
      expect(refused.body).toEqual(failure("Record is referenced by notes"));

      // Held by a loan only, and by a flag on a review its delete would cascade to: v1 has neither.
      const borrower = await create("/members/v1", { full_name: "Bo" });
      await create("/loans/v2", { member_id: borrower });
      expect(await refusals("members", borrower)).toEqual([
        "Record is referenced by other records",
        "Record is referenced by loans",
      ]);
      const reviewer = await create("/members/v1", { full_name: "Cy" });
      const review = await create("/reviews/v1", { member_id: reviewer });
      await create("/flags/v2", { review_id: review });
      expect(await refusals("members", reviewer)).toEqual([
        "Record is referenced by other records",
        "Record is referenced by flags (through reviews)",
      ]);

      // A table served as stored in every version (no per-version schemas) too.
      const post = await create("/posts/v1", { title: "Hello" });
      await create("/post_loans/v2", { post_id: post });
      expect(await refusals("posts", post)).toEqual([
        "Record is referenced by other records",
        "Record is referenced by post_loans",
      ]);
    });
  });
}
