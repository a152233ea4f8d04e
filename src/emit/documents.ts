import type { Model } from "../model/types.ts";
import { compactJson } from "./json-layout.ts";
import { openApiDocuments } from "./openapi.ts";

/** An OpenAPI document's file: in prettier's layout, or (`laidOut` false) for prettier to lay out. */
export interface DocumentFile {
  path: string;
  text: string;
  laidOut: boolean;
}

/**
 * The OpenAPI documents, one a version, written from their objects in prettier's layout
 * (`compactJson`), or as JSON.stringify writes them for prettier when it fills an array of them.
 */
export function documentFiles(model: Model, printWidth: number): DocumentFile[] {
  return [...openApiDocuments(model)].map(([version, document]) => {
    const path = `openapi/${version}.json`;
    const text = compactJson(document, printWidth);
    return text === undefined
      ? { path, text: JSON.stringify(document, null, 2) + "\n", laidOut: false }
      : { path, text, laidOut: true };
  });
}
