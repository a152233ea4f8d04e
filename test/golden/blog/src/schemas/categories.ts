import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A categories record as the API returns it. */
export type CategoriesRecord = {
  id: string;
  name: string;
};

/** The fields of a categories create; an update takes any non-empty subset. */
export interface CategoriesInput {
  name: string;
}

const record = {
  type: "object",
  properties: {
    id: { type: "string" },
    name: { type: "string" },
  },
  required: ["id", "name"],
} as const;

const fields = {
  name: { type: "string", minLength: 1, maxLength: 80 },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const categoriesSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["name"],
      additionalProperties: false,
    },
    response: { 201: envelopeSchema(record) },
  },
  update: {
    body: { type: "object", properties: fields, minProperties: 1, additionalProperties: false },
    response: { 200: envelopeSchema(record) },
  },
  remove: { response: { 200: deletedSchema } },
};
