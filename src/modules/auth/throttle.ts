import { and, inArray, eq, lt, sql } from "drizzle-orm";
import ipaddr from "ipaddr.js";
import type { Database } from "../../db/client";
import { throttles } from "../../db/schema";
import { TooManyRequestsError } from "../errors";

/**
 * Failure throttling kept in libSQL so every API process sees the same counters. After
 * `freeFailures` failures inside `windowMs`, the key is blocked, each further failure doubling the
 * block up to `maxBlockMs` (Lucia's throttler shape; the Copenhagen Book's per-IP numbers).
 */
export interface ThrottlePolicy {
  freeFailures: number;
  windowMs: number;
  baseBlockMs: number;
  maxBlockMs: number;
}

const MINUTE = 60_000;
export const LOGIN_PER_USERNAME: ThrottlePolicy = { freeFailures: 5, windowMs: 15 * MINUTE, baseBlockMs: 30_000, maxBlockMs: 15 * MINUTE };
export const LOGIN_PER_ADDRESS: ThrottlePolicy = { freeFailures: 20, windowMs: 15 * MINUTE, baseBlockMs: MINUTE, maxBlockMs: 15 * MINUTE };
export const SECOND_FACTOR_PER_USER: ThrottlePolicy = { freeFailures: 5, windowMs: 30 * MINUTE, baseBlockMs: 15 * MINUTE, maxBlockMs: 60 * MINUTE };
/** OAuth dynamic client registration: each registration counts, 20 an hour per client address. */
export const REGISTRATION_PER_ADDRESS: ThrottlePolicy = { freeFailures: 20, windowMs: 60 * MINUTE, baseBlockMs: 60 * MINUTE, maxBlockMs: 60 * MINUTE };

/** Past this, a row whose block is over counts for nothing under any policy, so it can go. */
const LONGEST_WINDOW_MS = Math.max(...[LOGIN_PER_USERNAME, LOGIN_PER_ADDRESS, SECOND_FACTOR_PER_USER, REGISTRATION_PER_ADDRESS].map((policy) => policy.windowMs));

export const throttleKeys = {
  loginUsername: (username: string) => `login:user:${username.toLowerCase()}`,
  loginAddress: (address: string) => `login:addr:${addressBlock(address)}`,
  secondFactor: (userId: number) => `2fa:user:${userId}`,
  oauthRegistration: (address: string) => `oauth-register:addr:${addressBlock(address)}`,
};

/**
 * The block one client controls: an IPv6 address's /64 (one host, or one customer, is usually handed a whole /64
 * and can pick any address in it), an IPv4 address as itself, an IPv4-mapped IPv6 address as its IPv4.
 */
export function addressBlock(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return ip.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/64`).toString()}/64`;
}

export async function assertNotThrottled(db: Database, keys: string[], message: string, now = Date.now()): Promise<void> {
  const rows = await db.select({ blockedUntil: throttles.blockedUntil }).from(throttles).where(inArray(throttles.key, keys));
  const blockedUntil = Math.max(0, ...rows.map((row) => row.blockedUntil));
  if (blockedUntil > now) throw new TooManyRequestsError(message, Math.ceil((blockedUntil - now) / 1000));
}

export async function recordFailure(db: Database, key: string, policy: ThrottlePolicy, now = Date.now()): Promise<void> {
  const windowOver = sql`${throttles.windowStartedAt} + ${policy.windowMs} < ${now} and ${throttles.blockedUntil} < ${now}`;
  const [row] = await db
    .insert(throttles)
    .values({ key, failures: 1, windowStartedAt: now, blockedUntil: 0 })
    .onConflictDoUpdate({
      target: throttles.key,
      set: {
        failures: sql`case when ${windowOver} then 1 else ${throttles.failures} + 1 end`,
        windowStartedAt: sql`case when ${windowOver} then ${now} else ${throttles.windowStartedAt} end`,
      },
    })
    .returning({ failures: throttles.failures });
  const failures = row?.failures ?? 1;
  if (failures >= policy.freeFailures) {
    const block = Math.min(policy.baseBlockMs * 2 ** (failures - policy.freeFailures), policy.maxBlockMs);
    await db.update(throttles).set({ blockedUntil: now + block }).where(eq(throttles.key, key));
  }
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.delete(throttles).where(eq(throttles.key, key));
}

/**
 * Deletes rows that block nothing and whose window is over under every policy (forgetting them changes no
 * decision); failed logins with ever new usernames would otherwise add rows forever.
 */
export async function forgetStaleThrottles(db: Database, now = Date.now()): Promise<number> {
  const result = await db
    .delete(throttles)
    .where(and(lt(throttles.windowStartedAt, now - LONGEST_WINDOW_MS), lt(throttles.blockedUntil, now)));
  return result.rowsAffected;
}
