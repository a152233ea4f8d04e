import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A comments record as the API returns it. */
export type CommentsRecord = {
  id: number;
  post_id: number;
  author: string;
  text: string;
};

/** The fields of a comments create; an update takes any non-empty subset. */
export interface CommentsInput {
  post_id: number;
  author: string;
  text: string;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    post_id: { type: "integer" },
    author: { type: "string" },
    text: { type: "string" },
  },
  required: ["id", "post_id", "author", "text"],
} as const;

const fields = {
  post_id: { type: "integer", minimum: 1, maximum: 2147483647 },
  author: { type: "string", minLength: 1, maxLength: 255 },
  text: { type: "string", minLength: 1 },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const commentsSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["post_id", "author", "text"],
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
