import { existsSync } from "node:fs";
import puppeteer, { type Browser, type HTTPResponse, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDocuments } from "./helpers/openapi.ts";
import { startTranspiled, type RunningServer } from "./helpers/server.ts";
import { exampleDatabase, sharedExample } from "./helpers/shared-examples.ts";

// The API reference page of the generated blog server (API_DOCS=on), opened in a real headless
// Chromium (Debian's chromium, driven by puppeteer-core, which downloads nothing): it renders,
// lists every operation of each version, loads nothing from anywhere but the server, and a request
// tried from it gets 401 without the key and 200 once the user has typed the key in.

const CHROMIUM = "/usr/bin/chromium";
const KEY = "browser-key-0123456789";
const missing = !existsSync(CHROMIUM);
if (missing && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);
if (missing) console.warn(`[docs-browser] skipped: ${CHROMIUM} is missing (apt-get install chromium, as .ci/run does)`);

describe.skipIf(missing)("the API reference page in Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let dir: string;
  /** Every URL the page asked for. */
  const requested: string[] = [];

  beforeAll(async () => {
    ({ dir } = await sharedExample("blog"));
    const db = await exampleDatabase("blog");
    [server, browser] = await Promise.all([
      startTranspiled(dir, { DATABASE_URL: db.url, API_SIGNATURE_KEY: KEY, API_DOCS: "on" }),
      puppeteer.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"], headless: true }),
    ]);
    page = await browser.newPage();
    page.on("request", (request) => requested.push(request.url()));
    await page.goto(`${server.url}/blog/docs`, { waitUntil: "networkidle0" });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The operation ids the page shows, once the document of `version` is rendered. */
  async function shownOperations(version: string): Promise<string[]> {
    await page.waitForFunction(
      (url) => document.querySelector(".information-container .link")?.textContent?.includes(url) === true,
      {},
      `${version}/openapi.json`,
    );
    await page.waitForSelector(".opblock");
    return page.$$eval(".opblock .opblock-summary-operation-id", (elements) =>
      elements.map((e) => e.textContent ?? ""),
    );
  }

  const operationIds = (version: string) =>
    Object.values(readDocuments(dir).get(version)!.paths).flatMap((item) =>
      Object.values(item).map((operation) => String(operation.operationId)),
    );

  it("renders every operation of the newest version, then of each version picked", async () => {
    expect(await page.title()).toBe("blog API reference");
    expect(await shownOperations("v2")).toEqual(operationIds("v2"));
    const versions = await page.$$eval(".topbar select option", (options) => options.map((o) => o.textContent));
    expect(versions).toEqual(["v1", "v2"]);
    const value = await page.$eval(
      ".topbar select",
      (select) => [...select.options].find((option) => option.textContent === "v1")!.value,
    );
    await page.select(".topbar select", value);
    expect(await shownOperations("v1")).toEqual(operationIds("v1"));
    await page.select(".topbar select", await page.$eval(".topbar select", (select) => select.options[1]!.value));
    expect(await shownOperations("v2")).toEqual(operationIds("v2"));
  });

  it("tries a request: 401 without the key, 200 once the key is typed in", async () => {
    const operation = "#operations-users-listUsers";
    await page.click(`${operation} .opblock-summary-control`);
    await page.waitForSelector(`${operation} .try-out__btn`);
    await page.click(`${operation} .try-out__btn`);
    await page.waitForSelector(`${operation} .execute`);

    const execute = async (): Promise<{ answer: HTTPResponse; shown: string }> => {
      const answered = page.waitForResponse((response) => response.url() === `${server.url}/blog/users/v2/list`);
      await page.click(`${operation} .execute`);
      const answer = await answered;
      const cell = `${operation} .live-responses-table tbody .response-col_status`;
      await page.waitForFunction(
        (selector, status) => document.querySelector(selector)?.textContent?.trim().startsWith(String(status)),
        {},
        cell,
        answer.status(),
      );
      return { answer, shown: (await page.$eval(cell, (element) => element.textContent ?? "")).trim() };
    };

    const refused = await execute();
    expect(refused.answer.status()).toBe(401);
    expect(refused.shown).toMatch(/^401/);
    expect(await refused.answer.json()).toEqual({
      success: false,
      message: "Invalid or missing API signature key",
      data: [],
    });

    await page.click(".btn.authorize");
    await page.waitForSelector(".modal-ux input");
    await page.type(".modal-ux input", KEY);
    await page.click(".modal-ux .auth-btn-wrapper .authorize");
    await page.click(".modal-ux .btn-done");

    const admitted = await execute();
    expect(admitted.answer.request().headers()["x-api-signature"]).toBe(KEY);
    expect(admitted.answer.status()).toBe(200);
    expect(admitted.shown).toMatch(/^200/);
    expect(await admitted.answer.json()).toMatchObject({ success: true, message: "Data found." });
  });

  it("loads nothing from anywhere but the server: no CDN", () => {
    const elsewhere = requested.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:"));
    expect(elsewhere).toEqual([]);
    expect(requested).toEqual(
      expect.arrayContaining([`${server.url}/blog/docs/init.js`, `${server.url}/blog/v2/openapi.json`]),
    );
  });
});
