import { checkQueries } from "../../src/cli/queries.ts";
import type { RawManifest } from "../../src/manifest/schema.ts";
import { buildModel } from "../../src/model/build.ts";

/**
 * Checks the manifests' queries once, in the test's own process, before commands that check them
 * run side by side: those find PostgreSQL's answers kept in the run's cache (src/cli/described-cache.ts),
 * as a user's later run does, instead of each starting a PGlite of its own (test/cli/ covers the checks).
 */
export async function keepQueryAnswers(...manifests: RawManifest[]): Promise<void> {
  await Promise.all(manifests.map((manifest) => checkQueries(buildModel(manifest))));
}
