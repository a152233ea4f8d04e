// `npm run build`'s last step: tablegen's Handlebars templates compiled ahead of time into
// dist/templates.json (src/emit/templates.ts, precompileTemplates), which the CLI reads with the
// templates and uses while they are the same texts: compiling them took every generation some 100 ms.
import { writeFileSync } from "node:fs";
import { loadSources, PRECOMPILED } from "../src/cli/host.ts";
import { packagePath } from "../src/cli/paths.ts";
import { precompileTemplates } from "../src/emit/templates.ts";

writeFileSync(packagePath(PRECOMPILED), JSON.stringify(precompileTemplates(loadSources().templates)));
