import { EXAMPLE_FIXTURES, goldenFixtures, goldenStaticFiles } from "./helpers/golden.ts";

// The golden files of every example, and the static ones every server gets (test/helpers/golden.ts).
goldenFixtures(EXAMPLE_FIXTURES);
goldenStaticFiles();
