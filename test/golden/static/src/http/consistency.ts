import type { FastifyRequest } from "fastify";
import { invalid } from "./errors.js";

/**
 * Whether a read must see every write answered before it: `X-Consistency: strong` reads from the
 * primary database; `eventual`, or no header, from any read replica that serves (PostgreSQL's
 * DATABASE_REPLICA_URLS), which may lag by up to REPLICA_MAX_LAG_MS. Without replicas every read
 * is the primary's, and the header changes nothing, but a value other than these two is refused.
 */
export function readsPrimary(request: FastifyRequest): boolean {
  const value = request.headers["x-consistency"];
  if (value === undefined || value === "eventual") return false;
  if (value === "strong") return true;
  throw invalid(["X-Consistency must be strong or eventual"]);
}
