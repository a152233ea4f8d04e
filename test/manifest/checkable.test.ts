import { describe, expect, it } from "vitest";
import { checkablePart } from "../../src/manifest/checkable.ts";
import { parseManifest } from "../../src/manifest/load.ts";
import { ManifestError, validateManifest } from "../../src/manifest/validate.ts";

// Issue 25, item 9: what of a manifest with problems the query check can still prepare.

/** The part left to check of a manifest that has problems. */
function unchecked(text: string) {
  try {
    validateManifest(parseManifest("m.yaml", text));
  } catch (error) {
    if (error instanceof ManifestError) return error.unchecked?.part;
    throw error;
  }
  throw new Error("the manifest is valid");
}

const TABLES = `project: clinic
tables:
  patients:
    fields:
      name: { type: TEXT, unique: true, versions: [v9], description: 7 }
      born: DATETIME
  visits:
    fields:
      patient_id: { type: NUMBER, references: patients }
      notes: STRNG
  Rooms:
    fields:
      label: TEXT
  beds:
    fields:
      room_id: { type: NUMBER, references: rooms }
      ward: TEXT
`;

describe("the part of a manifest with problems that the query check prepares", () => {
  it("keeps the sound tables and fields, and the queries that name nothing left out", () => {
    const part = unchecked(
      TABLES +
        [
          "queries:",
          "  ages: { sql: SELECT name, born FROM patients }",
          '  notes: { sql: SELECT "notes" FROM visits }',
          "  visits_of: { sql: SELECT v.patient_id FROM visits v }",
          "  rooms: { sql: SELECT label FROM Rooms }",
          "  wards: { sql: SELECT ward FROM beds }",
          "  beds_by_room: { sql: SELECT b.room_id FROM beds b }",
          "  bad: { sql: SELECT :x }",
          "",
        ].join("\n"),
    );
    // A field's versions and description play no part in its column; a table with an invalid name is left out,
    // and with it the reference to it (beds.room_id).
    expect(part?.tables).toEqual({
      patients: { fields: { name: { type: "TEXT", unique: true }, born: "DATETIME" } },
      visits: { fields: { patient_id: { type: "NUMBER", references: "patients" } } },
      beds: { fields: { ward: "TEXT" } },
    });
    // `notes` names a field with a problem (quoted or not), `rooms` a table left out (in any case),
    // `beds_by_room` a reference left out, `bad` has a problem of its own.
    expect(Object.keys(part?.queries ?? {})).toEqual(["ages", "visits_of", "wards"]);
  });

  it("leaves nothing to check when the database is unknown, or no query is left", () => {
    expect(
      unchecked(
        "project: x\ndatabase: oracle\ntables:\n  t: { fields: { a: TEXT } }\nqueries:\n  q: { sql: SELECT a FROM t }\n",
      ),
    ).toBeUndefined();
    expect(unchecked(`${TABLES}queries:\n  notes: { sql: SELECT notes FROM visits }\n`)).toBeUndefined();
    expect(checkablePart(undefined, [])).toBeUndefined();
  });
});
