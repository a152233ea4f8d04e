import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A companies record as the API returns it. */
export type CompaniesRecord = {
  id: string;
  name: string;
  website: string | null;
  created_at: string | null;
};

/** The fields of a companies create; an update takes any non-empty subset. */
export interface CompaniesInput {
  name: string;
  website?: string | null;
  created_at?: string | null;
}

const record = {
  type: "object",
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    website: { type: ["string", "null"] },
    created_at: { type: ["string", "null"] },
  },
  required: ["id", "name", "website", "created_at"],
} as const;

const fields = {
  name: { type: "string", minLength: 1, maxLength: 120 },
  website: { type: ["string", "null"], maxLength: 255 },
  created_at: { type: ["string", "null"], format: "datetime" },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const companiesSchemas = {
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
