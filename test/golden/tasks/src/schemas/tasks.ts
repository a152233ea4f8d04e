import { deletedSchema, envelopeSchema } from "../http/envelope.js";

/** A tasks record as the API returns it. */
export type TasksRecord = {
  id: number;
  title: string;
  description: string | null;
  status: string;
  due_at: string | null;
  priority: number | null;
  done: boolean;
};

/** The fields of a tasks create; an update takes any non-empty subset. */
export interface TasksInput {
  title: string;
  description?: string | null;
  status?: string;
  due_at?: string | null;
  priority?: number | null;
  done?: boolean;
}

const record = {
  type: "object",
  properties: {
    id: { type: "integer" },
    title: { type: "string" },
    description: { type: ["string", "null"] },
    status: { type: "string" },
    due_at: { type: ["string", "null"] },
    priority: { type: ["integer", "null"] },
    done: { type: "boolean" },
  },
  required: ["id", "title", "description", "status", "due_at", "priority", "done"],
} as const;

const fields = {
  title: { type: "string", minLength: 1, maxLength: 120 },
  description: { type: ["string", "null"] },
  status: { type: "string", minLength: 1, maxLength: 20 },
  due_at: { type: ["string", "null"], format: "datetime" },
  priority: { type: ["integer", "null"], minimum: -2147483648, maximum: 2147483647 },
  done: { type: "boolean" },
} as const;

/** Request and response schemas: Fastify compiles them into validators and serializers. */
export const tasksSchemas = {
  list: { response: { 200: envelopeSchema({ type: "array", items: record }) } },
  show: { response: { 200: envelopeSchema(record) } },
  create: {
    body: {
      type: "object",
      properties: fields,
      required: ["title"],
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
