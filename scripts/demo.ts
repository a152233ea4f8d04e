// `npm run demo`: the main job on the embedded default. Generates examples/blog.yaml into
// .tmp/demo, migrates it into a fresh SQLite file and starts it, printing the URL and a curl example.
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { newSignatureKey } from "../src/cli/init.ts";
import { generate } from "../src/cli/generate.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));
const out = join(repo, ".tmp", "demo");
const port = process.env.PORT ?? "3000";

await rm(out, { recursive: true, force: true });
console.log((await generate({ manifest: join(repo, "examples/blog.yaml"), out })).summary);

const key = newSignatureKey();
const env = { API_SIGNATURE_KEY: key, DATABASE_URL: "file:./demo.db", PORT: port };
await writeFile(
  join(out, ".env"),
  Object.entries(env)
    .map(([name, value]) => `${name}=${value}`)
    .join("\n") + "\n",
);
await execa("npm", ["run", "--silent", "migrate"], { cwd: out, stdio: "inherit" });
if (!existsSync(join(out, "demo.db"))) throw new Error("the migration did not create the database");

console.log(`
The blog API is starting on http://127.0.0.1:${port}/blog (Ctrl-C stops it). Try:

  curl -H "X-API-SIGNATURE: ${key}" -H "Content-Type: application/json" \\
    -d '{"name":"Ada","email":"ada@example.com"}' http://127.0.0.1:${port}/blog/users/v1/create
  curl -H "X-API-SIGNATURE: ${key}" http://127.0.0.1:${port}/blog/users/v1/list
`);
await execa("npm", ["start", "--silent"], { cwd: out, stdio: "inherit", reject: false });
