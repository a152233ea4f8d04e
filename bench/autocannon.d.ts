// The part of autocannon's API that bench/load.ts uses (autocannon ships no type declarations).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
    }

    interface Options {
      url: string;
      connections?: number;
      pipelining?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      requests: { average: number; total: number };
      latency: { p50: number; p99: number; average: number };
    }

    type Instance = EventEmitter & PromiseLike<Result>;
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
