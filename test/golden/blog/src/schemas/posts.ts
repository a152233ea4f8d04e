import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A posts record as the API returns it. */
export type PostsRecord = {
  id: number;
  title: string;
  body: string | null;
  published: boolean | null;
  rating: number | null;
  user_id: number;
  category_id: string | null;
  published_at: string | null;
};

/** The fields of a posts create; an update takes any non-empty subset. */
export interface PostsInput {
  title: string;
  body?: string | null;
  published?: boolean | null;
  rating?: number | null;
  user_id: number;
  category_id?: string | null;
  published_at?: string | null;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    title: { type: "string" },
    body: { type: ["string", "null"] },
    published: { type: ["boolean", "null"] },
    rating: { type: ["number", "null"] },
    user_id: { type: "integer" },
    category_id: { type: ["string", "null"] },
    published_at: { type: ["string", "null"] },
  },
  required: ["id", "title", "body", "published", "rating", "user_id", "category_id", "published_at"],
} as const;

const fields = {
  title: { type: "string", minLength: 1, maxLength: 200 },
  body: { type: ["string", "null"] },
  published: { type: ["boolean", "null"] },
  rating: { type: ["number", "null"] },
  user_id: { type: "integer", minimum: 1, maximum: 2147483647 },
  category_id: { type: ["string", "null"], format: "uuid" },
  published_at: { type: ["string", "null"], format: "datetime" },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const postsSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["title", "user_id"],
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
