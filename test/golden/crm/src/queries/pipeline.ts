import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db.js";
import { found } from "../http/envelope.js";
import { prepareQuery } from "../query.js";

const SQL = `
SELECT c.name AS company, count(d.id) AS deals, sum(d.amount) AS total, max(d.closes_at) AS last_close
FROM companies c
JOIN contacts p ON p.company_id = c.id
JOIN deals d ON d.contact_id = p.id
WHERE d.amount >= $1
GROUP BY c.name
ORDER BY total DESC
`;

interface Params {
  min_amount: string;
}

const schema = {
  querystring: {
    type: "object",
    properties: {
      min_amount: { type: "string", pattern: "^-?\\d+(\\.\\d+)?$", description: "a number" },
    },
    required: ["min_amount"],
    additionalProperties: false,
  },
} as const;

/** The pipeline query, prepared once; parameters are bound, never spliced into the SQL. */
export function pipelineQuery(db: Db) {
  const run = prepareQuery(db, "pipeline", SQL, ["min_amount"]);
  return (params: Params) => run([Number(params.min_amount)]);
}

export type PipelineQuery = ReturnType<typeof pipelineQuery>;

/** GET /crm/<version>/pipeline */
export const pipelineRoute: FastifyPluginAsync<{ query: PipelineQuery }> = async (app, { query }) => {
  app.get<{ Querystring: Params }>("/pipeline", { schema }, async (request) => found(await query(request.query)));
};
