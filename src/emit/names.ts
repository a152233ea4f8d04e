import { pascalCase } from "../manifest/validate.ts";

/** camelCase of a manifest name: `category_posts` → `categoryPosts`. */
function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

export { pascalCase };

/** Identifiers the generated code uses for one table. */
export function tableNames(table: string) {
  const pascal = pascalCase(table);
  const camel = camelCase(table);
  return {
    table,
    record: `${pascal}Record`,
    input: `${pascal}Input`,
    rowType: `${pascal}Row`,
    schemas: `${camel}Schemas`,
    factory: `${camel}Table`,
    tableType: `${pascal}Table`,
    routes: `${camel}Routes`,
  };
}

/** Identifiers the generated code uses for one custom query. */
export function queryNames(query: string) {
  const pascal = pascalCase(query);
  const camel = camelCase(query);
  return { factory: `${camel}Query`, queryType: `${pascal}Query`, routes: `${camel}Route` };
}
