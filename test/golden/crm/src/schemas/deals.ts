import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A deals record as the API returns it. */
export type DealsRecord = {
  id: number;
  contact_id: number;
  title: string;
  amount: number;
  closes_at: string | null;
  notes: string | null;
};

/** The fields of a deals create; an update takes any non-empty subset. */
export interface DealsInput {
  contact_id: number;
  title: string;
  amount: number;
  closes_at?: string | null;
  notes?: string | null;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    contact_id: { type: "integer" },
    title: { type: "string" },
    amount: { type: "number" },
    closes_at: { type: ["string", "null"] },
    notes: { type: ["string", "null"] },
  },
  required: ["id", "contact_id", "title", "amount", "closes_at", "notes"],
} as const;

const fields = {
  contact_id: { type: "integer", minimum: 1, maximum: 2147483647 },
  title: { type: "string", minLength: 1, maxLength: 255 },
  amount: { type: "number" },
  closes_at: { type: ["string", "null"], format: "datetime" },
  notes: { type: ["string", "null"] },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const dealsSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["contact_id", "title", "amount"],
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
