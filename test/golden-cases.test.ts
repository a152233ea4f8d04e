import { CASE_FIXTURES, goldenFixtures } from "./helpers/golden.ts";

// The golden files of every one-feature case, on each database (test/helpers/golden.ts).
goldenFixtures(CASE_FIXTURES);
