import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A contacts record as the API returns it. */
export type ContactsRecord = {
  id: number;
  company_id: string;
  full_name: string;
  email: string | null;
  phone: string | null;
  vip: boolean;
};

/** The fields of a contacts create; an update takes any non-empty subset. */
export interface ContactsInput {
  company_id: string;
  full_name: string;
  email?: string | null;
  phone?: string | null;
  vip?: boolean;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    company_id: { type: "string" },
    full_name: { type: "string" },
    email: { type: ["string", "null"] },
    phone: { type: ["string", "null"] },
    vip: { type: "boolean" },
  },
  required: ["id", "company_id", "full_name", "email", "phone", "vip"],
} as const;

const fields = {
  company_id: { type: "string", format: "uuid" },
  full_name: { type: "string", minLength: 1, maxLength: 255 },
  email: { type: ["string", "null"], maxLength: 254, format: "email" },
  phone: { type: ["string", "null"], maxLength: 32, format: "phone" },
  vip: { type: "boolean" },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const contactsSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["company_id", "full_name"],
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
