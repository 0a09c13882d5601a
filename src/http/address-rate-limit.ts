import { addressBlock } from "../modules/auth/throttle";

export interface RateLimitPolicy {
  /** Requests an address may make at once (a page and its pictures, a few reloads). */
  burst: number;
  /** Requests a second it may keep making after that. */
  perSecond: number;
}

/** Past this many addresses tracked, those that have earned their whole burst back are forgotten (they start full anyway). */
const MAX_TRACKED = 20_000;

/**
 * A token bucket per client address (an IPv6 /64 as one client, as the login throttle counts them),
 * in this process's memory: for public routes where an anonymous reader's request is cheap to
 * refuse and the limit only bounds what one address can make the server do.
 */
export class AddressRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from the address's bucket: null when allowed, else the seconds until one is. */
  take(address: string): number | null {
    const key = addressBlock(address);
    const now = this.now();
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(this.policy.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.policy.perSecond) : this.policy.burst;
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return Math.max(1, Math.ceil((1 - tokens) / this.policy.perSecond));
    }
    if (!bucket && this.buckets.size >= MAX_TRACKED) this.forgetRested(now);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return null;
  }

  private forgetRested(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.policy.perSecond >= this.policy.burst) this.buckets.delete(key);
    }
    // Still full of busy addresses: the oldest-tracked tenth go (each may then start a fresh burst, and that is all).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < MAX_TRACKED * 0.9) break;
      this.buckets.delete(key);
    }
  }
}
