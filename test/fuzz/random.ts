/** A seeded pseudo-random source (mulberry32): the same seed gives the same requests, run after run. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the entries, chosen by weight. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((sum, [weight]) => sum + weight, 0);
    let point = this.next() * total;
    for (const [weight, value] of entries) {
      point -= weight;
      if (point < 0) return value;
    }
    return entries.at(-1)![1];
  }

  bytes(length: number): Buffer {
    const buffer = Buffer.alloc(length);
    for (let index = 0; index < length; index++) buffer[index] = this.int(0, 255);
    return buffer;
  }
}
