import { describe, expect, it } from "vitest";
import { parseManifest } from "../../src/manifest/load.ts";
import { ManifestError, validateManifest } from "../../src/manifest/validate.ts";
import { buildModel } from "../../src/model/build.ts";
import { tableInVersion } from "../../src/model/versions.ts";

// Issue 15: versions as a map (deprecated, sunset), and fields that differ by version.

function problems(text: string): readonly string[] {
  try {
    validateManifest(parseManifest("m.yaml", text));
  } catch (error) {
    if (error instanceof ManifestError) return error.problems;
    throw error;
  }
  throw new Error("the manifest is valid");
}

const VALID = `project: x
versions:
  v1: { deprecated: 2026-11-01, sunset: 2027-06-30 }
  v2: { deprecated: true }
  v3: {}
tables:
  t:
    fields:
      a: { type: TEXT, names: { v1: b }, versions: [v1] }
      b: { type: TEXT, versions: [v2, v3] }
      c: { type: NUMBER, required: true, default: 1, versions: [v2, v3] }
      d: { type: TEXT, required: true, inVersions: { v1: { required: false, default: x } } }
`;

describe("versions that differ", () => {
  it("builds each version's view of a table: its fields, names and kept rules", () => {
    const model = buildModel(validateManifest(parseManifest("m.yaml", VALID)));
    expect(model.versions).toEqual(["v1", "v2", "v3"]);
    expect(model.deprecated).toEqual({ v1: { since: "2026-11-01", sunset: "2027-06-30" }, v2: {} });
    const v1 = tableInVersion(model.tables[0]!, "v1");
    expect(v1.fields.map((field) => [field.name, field.column, field.required, field.default])).toEqual([
      ["b", "a", false, undefined],
      ["d", "d", false, { kind: "value", value: "x" }],
    ]);
    const v2 = tableInVersion(model.tables[0]!, "v2");
    expect(v2.fields.map((field) => field.name)).toEqual(["b", "c", "d"]);
    // Made once per table and version: every emitter that asks gets the same view.
    expect(tableInVersion(model.tables[0]!, "v1")).toBe(v1);
  });

  it("refuses a bad map of versions, each problem located", () => {
    expect(
      problems(
        "project: x\nversions:\n  v1: { deprecated: true, sunset: 2027-02-30 }\n  v2: { sunset: 2027-06-30 }\n  V3: {}\n  v4: { deprecated: yesterday }\n  v5: { retired: true }\ntables:\n  t:\n    fields:\n      a: TEXT\n",
      ),
    ).toEqual([
      'm.yaml:3:35 versions.v1.sunset: must be a date like 2027-06-30, not string "2027-02-30"',
      "m.yaml:4:17 versions.v2.sunset: needs deprecated: a version that ends is deprecated first",
      'm.yaml:5:3 versions.V3: "V3" is not a version label: "v" followed by a number, like v1',
      'm.yaml:6:21 versions.v4.deprecated: must be true or a date like 2026-12-31, not string "yesterday"',
      'm.yaml:7:9 versions.v5.retired: unknown option "retired" (expected one of deprecated, sunset)',
    ]);
  });

  it("refuses a sunset earlier than the version's deprecation (RFC 9745 §4), located at the sunset", () => {
    expect(
      problems(
        "project: x\nversions:\n  v1: { deprecated: 2026-11-01, sunset: 2026-10-31 }\n  v2: { deprecated: 2026-11-01, sunset: 2026-11-01 }\n  v3: { deprecated: true, sunset: 2020-01-01 }\n  v4: {}\ntables:\n  t:\n    fields:\n      a: TEXT\n",
      ),
    ).toEqual([
      "m.yaml:3:41 versions.v1.sunset: 2026-10-31 is earlier than the version's deprecation (2026-11-01): a version is deprecated before it ends (RFC 9745)",
    ]);
  });

  it("refuses a field's versions and names outside its table's versions", () => {
    expect(
      problems(
        "project: x\nversions: [v1, v2]\ntables:\n  t:\n    versions: [v2]\n    fields:\n      a: { type: TEXT, versions: [v1] }\n      b: { type: TEXT, versions: [] }\n      c: { type: TEXT, names: { v1: old, v2: Bad } }\n      d: { type: TEXT, required: true, versions: [v2] }\n",
      ),
    ).toEqual([
      "m.yaml:7:35 tables.t.fields.a.versions.0: v1 is not one of the table's versions (v2)",
      "m.yaml:8:34 tables.t.fields.b.versions: must list at least one version",
      "m.yaml:9:33 tables.t.fields.c.names.v1: v1 is not one of the table's versions (v2)",
      'm.yaml:9:46 tables.t.fields.c.names.v2: "Bad" is not a valid field name: a lowercase letter, then lowercase letters, digits or underscores, 63 characters at most',
    ]);
  });

  it("refuses what a version's create could not give, and rules for versions without the field", () => {
    expect(
      problems(
        "project: x\nversions: [v1, v2]\ntables:\n  t:\n    fields:\n      a: { type: TEXT, required: true, versions: [v2] }\n      b: { type: NUMBER, required: true, inVersions: { v1: { required: false } } }\n      c: { type: NUMBER, inVersions: { v1: { default: nope }, v3: {} } }\n      d: { type: DATETIME, inVersions: { v1: { default: now } } }\n      e: { type: TEXT, versions: [v2], names: { v1: x }, inVersions: { v1: { required: true } } }\n",
      ),
    ).toEqual([
      "m.yaml:6:7 tables.t.fields.a: is required but not in v1: a create there cannot give it, so it needs a default",
      "m.yaml:7:72 tables.t.fields.b.inVersions.v1.required: a create in v1 may leave the field out, but it is stored required: give it a default (here or on the field)",
      'm.yaml:8:55 tables.t.fields.c.inVersions.v1.default: must be a number for a NUMBER field, not string "nope"',
      "m.yaml:8:63 tables.t.fields.c.inVersions.v3: v3 is not one of the table's versions (v1, v2)",
      'm.yaml:9:57 tables.t.fields.d.inVersions.v1.default: a version keeps a value: "now" is only for the field\'s own default',
      "m.yaml:10:49 tables.t.fields.e.names.v1: the field is not in v1 (its versions: v2)",
      "m.yaml:10:72 tables.t.fields.e.inVersions.v1: the field is not in v1 (its versions: v2)",
    ]);
  });

  it("refuses two fields under one name in a version", () => {
    expect(
      problems(
        "project: x\nversions: [v1, v2]\ntables:\n  t:\n    fields:\n      a: { type: TEXT, names: { v1: b } }\n      b: TEXT\n      c: { type: TEXT, names: { v2: id } }\n",
      ),
    ).toEqual([
      'm.yaml:7:10 tables.t.fields.b: duplicate name in v1: "b" is also the field "a"',
      'm.yaml:8:37 tables.t.fields.c.names.v2: duplicate name in v2: "id" is also the id',
    ]);
  });
});
