import { readFileSync } from "node:fs";
import Handlebars from "handlebars";
import { packagePath } from "./paths.ts";

const root = packagePath("templates") + "/";
const compiled = new Map<string, HandlebarsTemplateDelegate>();

/** Renders `templates/<name>` with Handlebars; templates are compiled once and kept. */
export function render(name: string, context: object): string {
  let template = compiled.get(name);
  if (!template) {
    template = Handlebars.compile(readFileSync(root + name, "utf8"), { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(context);
}

/** A template file used as it is. */
export function staticFile(name: string): string {
  return readFileSync(root + name, "utf8");
}
