import { existsSync, mkdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import puppeteer, { type Browser, type HTTPRequest, type Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { toAiForm } from "../../src/ai/schema.ts";
import type { Database } from "../../src/manifest/schema.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../ai/fake-openai.ts";
import { REPO, scratchDir } from "../helpers/generate.ts";
import { createDatabase } from "../helpers/pg-database.ts";
import { startStudioProcess, type StudioProcess } from "./studio-process.ts";

// tablegen studio driven end to end in a real Chromium (Debian's, through puppeteer-core), as a
// user would: create a project, design three tables with a reference and a custom query, (SQLite)
// name a reference's relations for expand (a refused name at its control), apply, start the
// server, add records in the data browser (the server's 409 and 400 at their fields), rename a
// field, drop another and rename a relation (the rename in the plan, the data loss to confirm, the
// break of v1), rotate the key, run the custom query, and (SQLite) draft with the AI generator; with
// TABLEGEN_STUDIO_SCREENSHOTS=1, a 1280×800 screenshot of each page into docs/studio/.

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = process.env.TABLEGEN_STUDIO_SCREENSHOTS === "1";
const CUSTOMER_ORDERS =
  "SELECT o.id AS order_id, p.title AS product, o.quantity FROM orders o JOIN products p ON p.id = o.product_id WHERE o.customer_id = :customer_id ORDER BY o.id";
/** A comment the user wrote by hand, which every save must keep. */
const COMMENT = "# The people who order: kept by hand, never rewritten by the studio.";

export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);

export function studioScenario(database: Database): void {
  const postgresUrl = inject("postgresUrl");
  const skip = chromiumMissing || (database === "postgresql" && !postgresUrl);
  if (chromiumMissing)
    console.warn(`[studio] skipped: ${CHROMIUM} is missing (apt-get install chromium, as .ci/run does)`);

  describe.skipIf(skip)(`tablegen studio in Chromium, ${database}`, () => {
    let studio: StudioProcess;
    let browser: Browser;
    let page: Page;
    let workspace: string;
    let project: string;
    let fake: FakeOpenAI | undefined;
    let databaseUrl: string | undefined;
    /** Every URL the page asked for. */
    const requested: string[] = [];
    const errors: string[] = [];

    beforeAll(async () => {
      workspace = await scratchDir(`studio-${database}`);
      project = join(workspace, "shop");
      fake = database === "sqlite" ? await startFakeOpenAI([]) : undefined;
      const env = fake ? { OPENAI_API_KEY: "test", OPENAI_BASE_URL: fake.url, TABLEGEN_AI_MODEL: "fake-model" } : {};
      [studio, browser, databaseUrl] = await Promise.all([
        startStudioProcess(workspace, env),
        puppeteer.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true }),
        database === "postgresql" ? createDatabase(postgresUrl, "studio") : Promise.resolve(undefined),
      ]);
      page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });
      // Every wait is for an event; this is only how long a loaded machine may take before it is a failure.
      page.setDefaultTimeout(Number(process.env.STUDIO_WAIT_MS ?? 60_000));
      page.on("request", (request) => requested.push(request.url()));
      page.on("pageerror", (error) => errors.push((error as Error).message));
    });

    // Each step builds on the one before: after a failure, the next ones are skipped, not timed out.
    let failed = false;
    afterEach(async (context) => {
      if (context.task.result?.state !== "fail" || failed) return;
      failed = true;
      // What the page showed when the step failed, beside the test run's other scratch output.
      const path = join(workspace, "failed-step.png");
      await page?.screenshot({ path }).catch(() => undefined);
      console.error(
        `[studio] the page when "${context.task.name}" failed: ${path}\n${await page?.$eval("main", (main) => (main as HTMLElement).innerText).catch(() => "")}`,
      );
    });
    beforeEach((context) => {
      if (failed) context.skip();
    });

    afterAll(async () => {
      await browser?.close();
      await studio?.stop();
      await fake?.close();
    });

    const shot = async (name: string) => {
      if (!SCREENSHOTS || database !== "sqlite") return;
      mkdirSync(join(REPO, "docs", "studio"), { recursive: true });
      await page.screenshot({ path: join(REPO, "docs", "studio", `${name}.png`) });
    };
    const go = async (hash: string) => {
      await page.evaluate((target) => (location.hash = target), hash);
    };
    const text = (selector: string) => page.$eval(selector, (element) => (element as HTMLElement).innerText);
    /** An attribute of the element (null when it has none). */
    const attribute = (selector: string, name: string) =>
      page.$eval(selector, (element, wanted) => element.getAttribute(wanted), name);
    /** Waits until the element's text holds `expected`. */
    const waitText = (selector: string, expected: string) =>
      page.waitForFunction(
        (target, wanted) =>
          [...document.querySelectorAll(target)].some((element) => (element as HTMLElement).innerText.includes(wanted)),
        {},
        selector,
        expected,
      );
    const button = (label: string) => page.locator(`button::-p-text(${label})`);
    /** Types into an input as a user does, and leaves it (its change event). */
    const fill = async (selector: string, value: string) => {
      // Keys, as a user types them: each an input event the page's state follows (a value set at
      // once could be put back by a render that lands meanwhile, as the validation's answer does).
      await page.locator(selector).click();
      await page.keyboard.down("Control");
      await page.keyboard.press("a");
      await page.keyboard.up("Control");
      await page.keyboard.press("Backspace");
      await page.keyboard.type(value);
    };
    const type = async (selector: string, value: string) => {
      await fill(selector, value);
      await page.$eval(selector, (element) => (element as HTMLElement).blur());
    };
    const manifest = () => readFile(join(project, "tablegen.yaml"), "utf8");
    /** The Tables page's state of the draft: "Checking…" (class checking) until its check answers. */
    const STATUS = ".page-header .status-text";
    /** A query's SQL editor (its content, which carries the label and the error's attributes). */
    const sqlEditor = (query: string) => `[aria-label="SQL of ${query}"]`;
    /** Replaces a query's SQL in its editor, as typed. */
    const replaceSql = async (query: string, sql: string) => {
      const editor = sqlEditor(query);
      // Once the draft's check has answered: its problems, shown above the editor, move it down, and a
      // click aimed before they appear lands beside it.
      await page.waitForSelector(`${STATUS}:not(.checking)`);
      await page.locator(editor).click();
      await page.waitForFunction((target) => document.activeElement?.matches(target), {}, editor);
      await page.keyboard.down("Control");
      await page.keyboard.press("a");
      await page.keyboard.up("Control");
      await page.keyboard.sendCharacter(sql);
    };
    /** The designer has checked the draft (the server's validator) and found it valid. */
    const valid = () => waitText(STATUS, "Valid");

    it("opens from the printed address alone, and creates a project as tablegen init does", async () => {
      await page.goto(studio.openUrl, { waitUntil: "networkidle0" });
      expect(page.url()).toBe(studio.url); // the token left the address bar for a cookie
      await fill("#new-name", "shop");
      await page.select("#new-database", database);
      await page.locator('input[name="start"][value="blank"]').click();
      await button("Create project").click();
      await page.waitForFunction(() => location.hash === "#/p/shop/tables");
      for (const file of ["tablegen.yaml", ".env", ".gitignore"])
        expect(existsSync(join(project, file)), file).toBe(true);
      // The user writes a comment into the file by hand.
      const text = await manifest();
      await writeFile(join(project, "tablegen.yaml"), text.replace("  items:\n", `  ${COMMENT}\n  items:\n`));
      if (databaseUrl) {
        await go("#/p/shop/settings");
        await button("Change").click();
        await fill("#database-url", databaseUrl);
        await button("Save URL").click();
        await waitText(".notice-success", "Saved DATABASE_URL");
        expect(await readFile(join(project, ".env"), "utf8")).toContain(`DATABASE_URL="${databaseUrl}"`);
      }
      await go("#/");
      await waitText(".grid.projects", "shop");
    });

    it("designs three tables with a reference and a custom query, validated live, saved with the comment kept", async () => {
      await page.reload({ waitUntil: "networkidle0" });
      await go("#/p/shop/tables");
      await page.waitForSelector("#table--items-name");
      // items becomes customers: name, and a unique e-mail.
      await type("#table--items-name", "customers");
      await page.waitForSelector("#field--customers--name--name");
      await button("+ Add field").click();
      await type("#field--customers--new_field--name", "email");
      await page.select("#field--customers--email--type", "EMAIL");
      await page.locator("#field--customers--email--required").click();
      await page.locator("#field--customers--email--unique").click();
      await page.locator("#field--customers--created_at--name").wait();
      // A problem is shown at its field: a maxLength of 0, then fixed.
      await type("#field--customers--name--maxLength", "0");
      await waitText(".field-block .field-error", "maxLength");
      expect(await attribute("#field--customers--name--maxLength", "aria-invalid")).toBe("true");
      await type("#field--customers--name--maxLength", "80");
      await valid();

      await button("+ Add table").click();
      await type("#table--new_table-name", "products");
      await page.waitForSelector("#field--products--name--name");
      await type("#field--products--name--name", "title");
      await button("+ Add field").click();
      await type("#field--products--new_field--name", "price");
      await page.select("#field--products--price--type", "NUMBER");

      await button("+ Add table").click();
      await type("#table--new_table-name", "orders");
      await page.waitForSelector("#field--orders--name--name");
      await type("#field--orders--name--name", "customer_id");
      await page.select("#field--orders--customer_id--references", "customers"); // required, as the new table's first field
      await page.select("#field--orders--customer_id--onDelete", "cascade");
      await button("+ Add field").click();
      await type("#field--orders--new_field--name", "product_id");
      await page.select("#field--orders--product_id--references", "products");
      await button("+ Add field").click();
      await type("#field--orders--new_field--name", "quantity");
      await page.select("#field--orders--quantity--type", "NUMBER");
      await valid();

      await button("+ Add query").click();
      await type("#query--new_query-name", "customer_orders");
      const sqlOfOrders = sqlEditor("customer_orders");
      await button("+ Add parameter").click();
      await type("#param--customer_orders--param-name", "customer_id");
      await page.select("#param--customer_orders--customer_id-type", "NUMBER");
      if (database === "sqlite") {
        // A misspelt column: the query check's message (the database's own words) at the editor, then fixed.
        await replaceSql("customer_orders", CUSTOMER_ORDERS.replace("p.title", "p.titel"));
        await waitText("#query--customer_orders-sql-error", "no such column: p.titel");
        expect(await attribute(sqlOfOrders, "aria-invalid")).toBe("true");
        expect(await attribute(sqlOfOrders, "aria-describedby")).toBe("query--customer_orders-sql-error");
      }
      await replaceSql("customer_orders", CUSTOMER_ORDERS);
      await valid();
      expect(await attribute(sqlOfOrders, "aria-invalid")).toBeNull();
      expect(await attribute(sqlOfOrders, "aria-describedby")).toBeNull();
      await button("Show YAML").click();
      await page.waitForSelector('[aria-label="tablegen.yaml as it would be saved"] .cm-content');
      await button("Hide YAML").click();
      await page.locator(".designer-list ::-p-text(orders)").click();
      await page.waitForSelector("#field--orders--customer_id--onDelete");

      await button("Save tablegen.yaml").click();
      await waitText(".notice-success", "Saved tablegen.yaml");
      const saved = parse(await manifest());
      expect(Object.keys(saved.tables)).toEqual(["customers", "products", "orders"]);
      expect(saved.tables.orders.fields.customer_id).toEqual({
        type: "NUMBER",
        references: "customers",
        required: true,
        onDelete: "cascade",
      });
      expect(saved.queries.customer_orders.params).toEqual({ customer_id: "NUMBER" });
      const text = await manifest();
      expect(text).toContain(`  ${COMMENT}\n  customers:\n`);
      expect(text.startsWith("# tablegen manifest: the tables of shop")).toBe(true);
    });

    // The manifest's own rules, alike on both databases: on SQLite only, whose checks are quicker.
    it.skipIf(database !== "sqlite")(
      "names a reference's relations for expand: as: saved, a taken name refused at its control, reverse: set and cleared",
      async () => {
        const as = "#field--orders--customer_id--as";
        const reverse = "#field--orders--customer_id--reverse";
        const customerId = async () => parse(await manifest()).tables.orders.fields.customer_id;
        /** customer_id once named `buyer` (and without a reverse name). */
        const namedBuyer = {
          type: "NUMBER",
          references: "customers",
          required: true,
          onDelete: "cascade",
          as: "buyer",
        };
        const save = async () => {
          await valid();
          await button("Save tablegen.yaml").click();
          await waitText(STATUS, "Valid · saved");
        };
        // What a blank name comes to, from the generator's own relations of the draft.
        await waitText(`${as}-hint`, "Blank: expand=customer, the field's name without _id.");
        await waitText(`${reverse}-hint`, "Blank: expand=orders on customers, this table's name.");
        // Typed, not yet left, while the page renders again (the YAML shown, clicked by script to keep
        // the focus): what was typed stays, and leaving the input makes the edit.
        await fill(as, "buyer");
        await page.$eval(".page-header button[aria-pressed]", (element) => (element as HTMLButtonElement).click());
        await page.waitForSelector('[aria-label="tablegen.yaml as it would be saved"]');
        await page.$eval(as, (element) => (element as HTMLElement).blur());
        await waitText(`${as}-hint`, "expand=buyer on orders embeds the customers record.");
        await button("Hide YAML").click();
        await save();
        expect(await customerId()).toEqual(namedBuyer);
        // The name of a field of orders: the validator's message under the control, the control invalid.
        await type(as, "quantity");
        await page.waitForSelector(`${as}-error`);
        expect(await text(`${as}-error`)).toBe(
          '"quantity" is a field of orders: a relation of orders needs a name of its own',
        );
        expect(await attribute(as, "aria-invalid")).toBe("true");
        expect(await attribute(as, "aria-describedby")).toBe(
          "field--orders--customer_id--as-hint field--orders--customer_id--as-error",
        );
        expect(await page.$$(".notice .problems")).toEqual([]); // shown at the control, not in the page's list
        // product_id's default name, taken: valid, and product_id's hint says it has none.
        await type(as, "product");
        await valid();
        await waitText(
          "#field--orders--product_id--as-hint",
          'Blank: not expandable, as "product" names another relation of orders.',
        );
        await type(as, "buyer");
        await type(reverse, "purchases");
        await waitText(`${reverse}-hint`, "expand=purchases on customers embeds the orders records referring to one.");
        await valid();
        await shot("tables");
        await save();
        expect((await customerId()).reverse).toBe("purchases");
        // Cleared: the key leaves the file, and the default is back.
        await type(reverse, "");
        await waitText(`${reverse}-hint`, "Blank: expand=orders on customers, this table's name.");
        await save();
        const saved = await manifest();
        expect(await customerId()).toEqual(namedBuyer);
        expect(saved).not.toContain("reverse");
        expect(saved).toContain(COMMENT);
      },
    );

    // The designer's own error path, on SQLite only: the studio's server made to fail its checks.
    it.skipIf(database !== "sqlite")(
      "a check that fails says so; one that fails while the user types still leaves the newest draft checked",
      async () => {
        const maxLength = "#field--customers--name--maxLength";
        await go("#/p/shop/tables");
        await page.locator(".designer-list ::-p-text(customers)").click();
        await page.waitForSelector(maxLength);
        /** What becomes of each check's request, the others going on as they are. */
        let route: (request: HTTPRequest) => void = (request) => void request.continue();
        const intercept = (request: HTTPRequest) =>
          request.url().endsWith("/validate") ? route(request) : void request.continue();
        const fail = (request: HTTPRequest) =>
          request.respond({
            status: 500,
            contentType: "application/json",
            body: JSON.stringify({ message: "The check could not run" }),
          });
        await page.setRequestInterception(true);
        page.on("request", intercept);
        try {
          // Every check fails: the message on the page, and the status does not claim the draft valid.
          route = (request) => void fail(request);
          await type(maxLength, "70");
          await waitText(".notice-error", "The check could not run");
          expect(await text(".notice-error .notice-title")).toBe("The draft could not be checked");
          await waitText(STATUS, "Not checked");
          // The first check is held while the user types on; it fails once a newer draft's own timer has
          // found it running. The newest draft is checked all the same.
          const held = new Promise<HTTPRequest>((resolve) => {
            route = (request) => {
              route = (later) => void later.continue();
              resolve(request);
            };
          });
          await type(maxLength, "9");
          const first = await held;
          await type(maxLength, "80");
          await new Promise((resolve) => setTimeout(resolve, 1_000)); // only so that the timer has run
          await fail(first);
          await valid();
          expect(await page.$(".notice-error")).toBeNull();
          expect(await page.$eval(maxLength, (element) => (element as HTMLInputElement).value)).toBe("80");
        } finally {
          page.off("request", intercept);
          await page.setRequestInterception(false);
        }
        await button("Discard changes").click();
        await waitText(STATUS, "Valid · saved");
      },
    );

    it("plans and applies: generate, then migrate", async () => {
      await go("#/p/shop/changes");
      await waitText("#files-title", "Files");
      expect(await text(".file-list")).toContain("src/routes/customers.ts");
      expect(await text('[aria-label="Schema changes"]')).toContain("orders: table added");
      await button("Apply changes").click();
      await waitText(".notice-success", "Applied");
      expect(await text('[aria-label="Applying the changes"]')).toMatch(/Generated shop\/server: \d+ files written/);
      expect(existsSync(join(project, "server", "prisma", "migrations"))).toBe(true);
      await waitText(".notice-success", "Nothing to apply");
    });

    it("starts the server and adds records through its API: a 409 and a 400 at their fields", async () => {
      await go("#/p/shop/data?table=customers");
      await button("Start server").click();
      await waitText(".server-state", "running");
      const create = async (values: Record<string, string>) => {
        await button("+ New record").click();
        await page.waitForSelector(".record-panel form");
        for (const [field, value] of Object.entries(values)) await fill(`.record-panel [id$="--${field}"]`, value);
        await page.locator(".record-panel button[type=submit]").click();
      };
      await create({ name: "Ada Lovelace", email: "ada@example.com" });
      await waitText(".record-panel", "Record created successfully.");
      await waitText(".grid.records", "ada@example.com");
      await create({ name: "Ada again", email: "ada@example.com" });
      await page.waitForSelector("#record--customers--email-error");
      expect(await text("#record--customers--email-error")).toBe("email already exists");
      expect(await attribute("#record--customers--email", "aria-invalid")).toBe("true");

      await go("#/p/shop/data?table=products");
      await create({ title: "Lamp", price: "19.5" });
      await waitText(".record-panel", "Record created successfully.");
      await go("#/p/shop/data?table=orders");
      await create({ customer_id: "99", product_id: "1", quantity: "2" });
      await page.waitForSelector("#record--orders--customer_id-error");
      expect(await text("#record--orders--customer_id-error")).toBe("customer_id refers to no customers record");
      await fill("#record--orders--customer_id", "1");
      await page.locator(".record-panel button[type=submit]").click();
      await waitText(".record-panel", "Record created successfully.");
      // An edit, and a delete the server refuses (a restricting reference), its 409 in the panel.
      await go("#/p/shop/data?table=products&record=1");
      await page.waitForFunction(
        () => (document.querySelector("#record--products--title") as HTMLInputElement)?.value === "Lamp",
      );
      await fill("#record--products--title", "Desk lamp");
      await page.locator(".record-panel button[type=submit]").click();
      await waitText(".record-panel", "Record updated successfully.");
      await waitText(".grid.records", "Desk lamp");
      await button("Delete").click();
      await button("Yes, delete").click();
      await waitText("#record-form-error", "409: Record is referenced by orders");
      await go("#/p/shop/data?table=orders");
      await waitText(".grid.records", "customers 1");
      // A reference is a link to its record, and that record reaches the orders that refer to it.
      if (SCREENSHOTS) {
        // A few more records for the picture, through the same API.
        await page.evaluate(async () => {
          const create = (table: string, body: object) =>
            fetch(`/api/projects/shop/data/${table}/v1/create`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
            });
          await create("customers", { name: "Grace Hopper", email: "grace@example.com" });
          await create("customers", { name: "Alan Turing", email: "alan@example.com" });
          await create("orders", { customer_id: 1, product_id: 1, quantity: 1 });
        });
      }
      await page.locator(".grid.records a::-p-text(customers 1)").click();
      await waitText(".record-panel h2", "customers 1");
      await waitText(".referrers", "orders where customer_id = 1");
      await page.waitForFunction(
        () => (document.querySelector("#record--customers--name") as HTMLInputElement)?.value === "Ada Lovelace",
      );
      await waitText(".grid.records", "ada@example.com");
      await shot("data");
      await page.locator(".referrers a").click();
      await waitText(".chips", "customer_id = 1");
      await waitText(".pager", SCREENSHOTS ? "1–2 of 2 records" : "1–1 of 1 record");
    });

    it("shows a renamed field as a rename, a dropped one as data loss and a renamed relation as a break, then applies them", async () => {
      await go("#/p/shop/tables");
      // The orders' product becomes their item in expand: a published version's name gone.
      await page.locator(".designer-list ::-p-text(orders)").click();
      await type("#field--orders--product_id--as", "item");
      await page.locator(".designer-list ::-p-text(customers)").click();
      await type("#field--customers--name--name", "full_name");
      await page.waitForSelector("#field--customers--full_name--name");
      await page.locator(".designer-list ::-p-text(products)").click();
      await page.locator('[aria-label="Remove field price"]').click();
      await valid();
      await button("Save tablegen.yaml").click();
      await waitText(".notice-success", "Saved");
      expect(parse(await manifest()).tables.customers.fields.full_name).toEqual({
        type: "TEXT",
        required: true,
        maxLength: 80,
        renamedFrom: "name",
      });
      expect(await manifest()).toContain(COMMENT);

      await go("#/p/shop/changes");
      await waitText('[aria-label="Renames"]', "customers.name → customers.full_name");
      await waitText(".risks", "products.price: field removed, 1 row holds a value");
      await waitText("#breaks-title", "Breaks of published versions");
      const buyer = database === "sqlite" ? "buyer" : "customer"; // as: on SQLite (the step above)
      await waitText(
        ".risks",
        `v1: GET /shop/orders/v1/list: query parameter "expand" no longer accepts "${buyer}.orders.product", "product", "product.orders", "product.orders.${buyer}", "product.orders.product"`,
      );
      const apply = page.locator("::-p-text(Apply changes)");
      expect(await page.$eval(".apply .button.primary", (element) => (element as HTMLButtonElement).disabled)).toBe(
        true,
      );
      expect(await text(".apply")).toContain("Confirm the data loss above first.");
      await shot("changes");
      await page.locator("#accept-data-loss").click();
      await page.locator("#allow-breaking-v1").click();
      await apply.click();
      await waitText(".notice-success", "Applied");
      const log = await text('[aria-label="Applying the changes"]');
      expect(log).toContain("Migrating (--accept-data-loss)…");
      expect(log).toContain("customers.name: field renamed to full_name");
      expect(log).toContain("Restarting the server onto the new code and schema…");
      await go("#/p/shop/data?table=customers");
      await waitText(".grid.records", "Ada Lovelace"); // the value survived the rename
      expect(await text(".grid.records thead")).toContain("full_name");
    });

    it("rotates the key with the server's comma-separated rotation and finishes it; makes a scoped key and revokes it", async () => {
      const keyOf = async () => /API_SIGNATURE_KEY=(.*)/.exec(await readFile(join(project, ".env"), "utf8"))![1]!;
      const before = await keyOf();
      await go("#/p/shop/settings");
      await waitText("#api-key", "••••");
      expect(await text("#api-key")).toBe(`${before.slice(0, 4)}${"•".repeat(12)}`);
      await button("Rotate key").click();
      await button("Rotate now").click();
      await waitText(".notice-warning", "Rotation under way");
      const rotated = (await keyOf()).split(",");
      expect(rotated).toHaveLength(2);
      expect(rotated[1]).toBe(before);
      await button("Reveal").click();
      await waitText("#api-key", rotated[0]!);
      // A scoped key: a refused scope at its field, then a key whose secret is shown once.
      await fill("#new-key--name", "mobile");
      await fill("#new-key--scope", "customers:read,invoices:write");
      await fill("#new-key--limit", "100/min");
      await button("Make key").click();
      await waitText("#new-key--scope-error", 'scope entry "invoices:write": invoices is no table or query of shop');
      await fill("#new-key--scope", "customers:read,orders:write");
      await button("Make key").click();
      await waitText(".notice-success", "Key mobile made");
      const secret = await text('[aria-label="secret of mobile"]');
      expect(await readFile(join(project, ".env"), "utf8")).toMatch(
        /^API_KEY_MOBILE="?sha256:[0-9a-f]{64};scope=customers:read,orders:write;limit=100\/min"?$/m,
      );
      expect(await readFile(join(project, ".env"), "utf8")).not.toContain(secret);
      expect(await text('[aria-label="Scoped keys"] tbody')).toContain("customers:read,orders:write");
      await shot("settings");
      await button("Revoke").click();
      await page.locator('button[aria-label="Confirm: revoke mobile"]').click();
      await waitText(".notice-success", "Revoked mobile");
      expect(await readFile(join(project, ".env"), "utf8")).not.toContain("API_KEY_MOBILE");
      // The restarted server takes the new key: the data browser still reads.
      await go("#/p/shop/data?table=customers");
      await waitText(".grid.records", "Ada Lovelace");
      await go("#/p/shop/settings");
      await button("Finish rotation (drop the old keys)").click();
      await waitText(".notice-success", "Rotation finished");
      expect(await keyOf()).toBe(rotated[0]);
      // The versions: a sunset without a deprecation is refused at its field, then v1 is deprecated.
      await fill("#version--v1--sunset", "2026-12-31");
      await button("Save versions").click();
      await waitText("#version--v1--sunset-error", "needs deprecated: a version that ends is deprecated first");
      await page.locator("#version--v1--deprecated").click();
      await fill("#version--v1--since", "2026-01-31");
      await button("Save versions").click();
      await waitText(".notice-success", "Saved the versions in tablegen.yaml");
      expect(parse(await manifest()).versions).toEqual({ v1: { deprecated: "2026-01-31", sunset: "2026-12-31" } });
      expect(await manifest()).toContain(COMMENT);
    });

    it("runs a custom query with its parameters, and shows the routes with curl and typed-client snippets", async () => {
      await go("#/p/shop/api");
      await waitText("#api--customers", "customers");
      await waitText(".lead", "v1 is deprecated since 2026-01-31, and stops answering on 2026-12-31");
      // What expand names on each table, as:, reverse: and defaults alike (the names given first, as the generator orders them).
      const customer = "(the customers record customer_id refers to)";
      const item = "item (the products record product_id refers to)";
      await waitText(
        '[aria-labelledby="api--orders"] .expand-names',
        `expand on list and show: ${database === "sqlite" ? `buyer ${customer}, ${item}` : `${item}, customer ${customer}`}`,
      );
      await waitText(
        '[aria-labelledby="api--customers"] .expand-names',
        "expand on list and show: orders (the orders records referring to it by customer_id)",
      );
      await page.locator(".route-head ::-p-text(/shop/customers/v1/list)").click();
      await waitText(".route-body", 'curl -H "X-API-SIGNATURE: $API_SIGNATURE_KEY"');
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot("api");
      await fill("#run--customer_orders--customer_id", "1");
      await button("Run query").click();
      await page.waitForSelector('[aria-label="Rows of customer_orders"] tbody tr');
      expect(await text('[aria-label="Rows of customer_orders"]')).toContain("Desk lamp");
      await fill("#run--customer_orders--customer_id", "x");
      await button("Run query").click();
      await waitText("#run--customer_orders-result-error", "400: Invalid request: customer_id must be a number");
      await fill("#run--customer_orders--customer_id", "1");
      await button("Run query").click();
      await page.waitForSelector('[aria-label="Rows of customer_orders"] tbody tr');
      await shot("api-query");
    });

    it(
      database === "sqlite"
        ? "drafts an extension with the AI generator: the repair loop's messages, the draft as a diff, accepted"
        : "says how to configure a model when none is",
      async () => {
        await go("#/p/shop/ai");
        if (!fake) {
          await waitText(".notice-warning", "OPENAI_API_KEY is not set");
          expect(await page.$eval("#ai-prompt", (element) => (element as HTMLTextAreaElement).disabled)).toBe(true);
          return;
        }
        const current = parse(await manifest());
        const withTags = (references: string) => ({
          ...current,
          tables: {
            ...current.tables,
            tags: { fields: { label: { type: "TEXT", required: true } } },
            product_tags: {
              fields: {
                product_id: { type: "NUMBER", required: true, references: "products", onDelete: "cascade" },
                tag_id: { type: "NUMBER", required: true, references, onDelete: "cascade" },
              },
            },
          },
        });
        fake.queue({ content: toAiForm(withTags("labels")) }, { content: toAiForm(withTags("tags")) });
        await fill("#ai-prompt", "add tags that products can have several of");
        await button("Draft").click();
        await waitText(".draft-changes", "table tags");
        const log = '[aria-label="Drafting with the AI model"]';
        await waitText(log, "Drafting the manifest with fake-model…");
        await waitText(
          log,
          'The draft is invalid (1 problem), sent back for repair: tables.product_tags.fields.tag_id.references: refers to a table that does not exist: "labels"',
        );
        await waitText(log, "Repairing the draft (1 of 2)…");
        await waitText(log, "Drafted a valid manifest with fake-model after 1 repair");
        expect(await text("#draft-title")).toContain("valid after 1 repair");
        expect(await text(".draft-changes")).toContain("added table product_tags (product_id, tag_id)");
        await shot("ai");
        await button("Accept into tablegen.yaml").click();
        await waitText(".notice-success", "Wrote the draft into tablegen.yaml");
        const accepted = await manifest();
        expect(parse(accepted).tables.product_tags.fields.tag_id.references).toBe("tags");
        expect(accepted).toContain(COMMENT);
        await go("#/");
        await waitText(".grid.projects", "server running");
        await shot("projects");
      },
    );

    it("is usable on a narrow window: no page is wider than it", async () => {
      await page.setViewport({ width: 480, height: 900 });
      try {
        for (const [hash, ready] of [
          ["#/", ".grid.projects"],
          ["#/p/shop/tables", ".field-row"],
          ["#/p/shop/changes", "#files-title"],
          ["#/p/shop/data?table=orders", ".grid.records tbody tr"],
          ["#/p/shop/api", ".routes"],
          ["#/p/shop/settings", "#api-key"],
        ] as const) {
          await go(hash);
          await page.waitForSelector(ready);
          if (hash === "#/p/shop/tables") {
            // A reference's options: the relation names of expand, one above the other.
            await page.locator(".designer-list ::-p-text(orders)").click();
            await page.waitForSelector("#field--orders--customer_id--as");
            await valid();
          }
          const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
          expect(widths[0], hash).toBeLessThanOrEqual(widths[1]!);
          // Every control has an accessible name: its label, aria-label, or its own text.
          const unnamed = await page.evaluate(() =>
            [
              ...document.querySelectorAll<HTMLElement>(
                "input, select, textarea, button, a[href], [contenteditable=true]",
              ),
            ]
              .filter(
                (element) => !element.closest("[aria-hidden=true]") && (element as HTMLInputElement).type !== "hidden",
              )
              .filter((element) => {
                const labelled = element.getAttribute("aria-labelledby");
                const name =
                  element.getAttribute("aria-label") ||
                  (labelled && document.getElementById(labelled)?.textContent) ||
                  [...((element as HTMLInputElement).labels ?? [])].map((label) => label.textContent).join("") ||
                  (["BUTTON", "A"].includes(element.tagName) ? element.textContent : "") ||
                  element.getAttribute("title") ||
                  "";
                return name.trim() === "";
              })
              .map((element) => element.outerHTML.slice(0, 160)),
          );
          expect(unnamed, hash).toEqual([]);
          if (hash === "#/p/shop/tables" && SCREENSHOTS && database === "sqlite") {
            await page.$eval(".fields-head", (element) => element.scrollIntoView());
            await page.screenshot({ path: join(REPO, "docs", "studio", "narrow.png") });
            await page.evaluate(() => window.scrollTo(0, 0));
          }
        }
      } finally {
        await page.setViewport({ width: 1280, height: 800 });
      }
    });

    it("loaded nothing from anywhere but the studio, and threw no error", () => {
      const elsewhere = requested.filter((url) => !url.startsWith(studio.url) && !url.startsWith("data:"));
      expect(elsewhere).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
}
