import type { KeyEntry, RateLimit } from "./api-keys.js";
import type { Db } from "./db.js";

/** A key with a limit. */
export type LimitedKey = KeyEntry & { limit: RateLimit };

/** The counts of the requests of API_KEY_<NAME> keys that have a limit. */
export interface Limiter {
  /** Readies the counts (at start, once). */
  prepare(): Promise<void>;
  /**
   * Counts a request of a key: undefined while the key is within its limit in the current window,
   * else the seconds until the window ends (`Retry-After`).
   */
  hit(key: LimitedKey): number | undefined;
}

/**
 * Fixed windows (a `100/min` key: 100 requests in each minute of the clock), counted in this
 * process's memory: with `npm run cluster` each worker counts its own requests. A key without a
 * limit is never counted.
 */
export function openLimiter(_db: Db, _project: string): Limiter {
  const windows = new Map<KeyEntry, { window: number; hits: number }>();
  return {
    prepare: async () => undefined,
    hit(key) {
      const { count, seconds } = key.limit;
      const now = Date.now() / 1000;
      const window = Math.floor(now / seconds);
      let counter = windows.get(key);
      if (counter === undefined || counter.window !== window) windows.set(key, (counter = { window, hits: 0 }));
      counter.hits += 1;
      return counter.hits <= count ? undefined : Math.max(1, Math.ceil((window + 1) * seconds - now));
    },
  };
}
