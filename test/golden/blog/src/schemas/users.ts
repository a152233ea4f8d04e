import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A users record as the API returns it. */
export type UsersRecord = {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  bio: string | null;
  active: boolean | null;
  created_at: string | null;
};

/** The fields of a users create; an update takes any non-empty subset. */
export interface UsersInput {
  name: string;
  email: string;
  phone?: string | null;
  bio?: string | null;
  active?: boolean | null;
  created_at?: string | null;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    email: { type: "string" },
    phone: { type: ["string", "null"] },
    bio: { type: ["string", "null"] },
    active: { type: ["boolean", "null"] },
    created_at: { type: ["string", "null"] },
  },
  required: ["id", "name", "email", "phone", "bio", "active", "created_at"],
} as const;

const fields = {
  name: { type: "string", minLength: 1, maxLength: 255 },
  email: { type: "string", minLength: 1, maxLength: 254, format: "email" },
  phone: { type: ["string", "null"], maxLength: 32, format: "phone" },
  bio: { type: ["string", "null"] },
  active: { type: ["boolean", "null"] },
  created_at: { type: ["string", "null"], format: "datetime" },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const usersSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["name", "email"],
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
