import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { throttles } from "../../../src/db/schema";
import { TooManyRequestsError } from "../../../src/modules/errors";
import {
  assertNotThrottled,
  clearFailures,
  LOGIN_PER_ADDRESS,
  LOGIN_PER_USERNAME,
  recordFailure,
  SECOND_FACTOR_PER_USER,
  throttleKeys,
  type ThrottlePolicy,
} from "../../../src/modules/auth/throttle";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const POLICY: ThrottlePolicy = { freeFailures: 3, windowMs: 10_000, baseBlockMs: 1_000, maxBlockMs: 8_000 };
const T0 = 1_800_000_000_000;

const database = await notesDatabaseForThisFile();
let nextKey = 0;

const freshKey = () => `test:key:${++nextKey}`;

async function row(key: string) {
  const [found] = await database.db.select().from(throttles).where(eq(throttles.key, key));
  return found;
}

async function blockedAt(key: string, now: number): Promise<TooManyRequestsError | null> {
  try {
    await assertNotThrottled(database.db, [key], "blocked", now);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(TooManyRequestsError);
    return error as TooManyRequestsError;
  }
}

describe("throttling failures", () => {
  test("a key with fewer failures than the free allowance is not blocked", async () => {
    const key = freshKey();
    await recordFailure(database.db, key, POLICY, T0);
    await recordFailure(database.db, key, POLICY, T0 + 1);
    expect(await blockedAt(key, T0 + 2)).toBeNull();
    expect((await row(key))?.failures).toBe(2);
  });

  test("an unknown key is not blocked", async () => {
    expect(await blockedAt(freshKey(), T0)).toBeNull();
  });

  test("reaching the allowance blocks for the base time, with Retry-After in whole seconds", async () => {
    const key = freshKey();
    for (let i = 0; i < 3; i++) await recordFailure(database.db, key, POLICY, T0);
    expect((await row(key))?.blockedUntil).toBe(T0 + 1_000);
    const blocked = await blockedAt(key, T0 + 200);
    expect(blocked?.retryAfterSeconds).toBe(1);
    expect(blocked?.message).toBe("blocked");
    expect(await blockedAt(key, T0 + 1_000)).toBeNull();
  });

  test("each further failure doubles the block, up to the maximum", async () => {
    const key = freshKey();
    const blocks: number[] = [];
    for (let failure = 1; failure <= 8; failure++) {
      await recordFailure(database.db, key, POLICY, T0);
      const until = (await row(key))!.blockedUntil;
      blocks.push(until === 0 ? 0 : until - T0);
    }
    expect(blocks).toEqual([0, 0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect((await blockedAt(key, T0))?.retryAfterSeconds).toBe(8);
  });

  test("failures older than the window no longer count once no block is running", async () => {
    const key = freshKey();
    await recordFailure(database.db, key, POLICY, T0);
    await recordFailure(database.db, key, POLICY, T0);
    await recordFailure(database.db, key, POLICY, T0 + POLICY.windowMs + 1);
    expect((await row(key))?.failures).toBe(1);
    expect((await row(key))?.windowStartedAt).toBe(T0 + POLICY.windowMs + 1);
    expect(await blockedAt(key, T0 + POLICY.windowMs + 2)).toBeNull();
  });

  test("failures inside the window keep counting", async () => {
    const key = freshKey();
    await recordFailure(database.db, key, POLICY, T0);
    await recordFailure(database.db, key, POLICY, T0 + POLICY.windowMs - 1);
    await recordFailure(database.db, key, POLICY, T0 + POLICY.windowMs);
    expect((await row(key))?.failures).toBe(3);
    expect(await blockedAt(key, T0 + POLICY.windowMs + 1)).not.toBeNull();
  });

  test("the window does not reset while a block is still running", async () => {
    const key = freshKey();
    const long: ThrottlePolicy = { ...POLICY, baseBlockMs: 60_000, maxBlockMs: 60_000 };
    for (let i = 0; i < 3; i++) await recordFailure(database.db, key, long, T0);
    await recordFailure(database.db, key, long, T0 + POLICY.windowMs + 1);
    expect((await row(key))?.failures).toBe(4);
  });

  test("clearing failures lifts a block", async () => {
    const key = freshKey();
    for (let i = 0; i < 3; i++) await recordFailure(database.db, key, POLICY, T0);
    await clearFailures(database.db, key);
    expect(await row(key)).toBeUndefined();
    expect(await blockedAt(key, T0)).toBeNull();
  });

  test("any blocked key among several blocks, with the longest wait", async () => {
    const short = freshKey();
    const long = freshKey();
    for (let i = 0; i < 3; i++) await recordFailure(database.db, short, POLICY, T0);
    for (let i = 0; i < 5; i++) await recordFailure(database.db, long, POLICY, T0);
    const error = await (async () => {
      try {
        await assertNotThrottled(database.db, [freshKey(), short, long], "blocked", T0);
      } catch (caught) {
        return caught as TooManyRequestsError;
      }
    })();
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error!.retryAfterSeconds).toBe(4);
  });
});

describe("the service's policies and keys", () => {
  test("login: 5 failures per username, 20 per address; second factor: 5 per user", () => {
    expect(LOGIN_PER_USERNAME.freeFailures).toBe(5);
    expect(LOGIN_PER_ADDRESS.freeFailures).toBe(20);
    expect(SECOND_FACTOR_PER_USER.freeFailures).toBe(5);
    expect(SECOND_FACTOR_PER_USER.baseBlockMs).toBeGreaterThanOrEqual(15 * 60_000);
  });

  test("username keys ignore case, so spellings of one account share a counter", () => {
    expect(throttleKeys.loginUsername("Ada")).toBe(throttleKeys.loginUsername("aDA"));
    expect(throttleKeys.loginAddress("127.0.0.1")).not.toBe(throttleKeys.loginUsername("127.0.0.1"));
    expect(throttleKeys.secondFactor(1)).not.toBe(throttleKeys.secondFactor(2));
  });
});

describe("per-address login keys", () => {
  const key = throttleKeys.loginAddress;

  test("two IPv6 addresses in one /64 share a key, however they are written", () => {
    expect(key("2001:db8:1:2::1")).toBe(key("2001:db8:1:2:ffff:ffff:ffff:fffe"));
    expect(key("2001:0DB8:0001:0002:0000:0000:0000:0009")).toBe(key("2001:db8:1:2::1"));
    expect(key("2001:db8:1:2::1")).toBe("login:addr:2001:db8:1:2::/64");
  });

  test("IPv6 addresses in neighbouring /64s do not", () => {
    expect(key("2001:db8:1:2::1")).not.toBe(key("2001:db8:1:3::1"));
  });

  test("an IPv4-mapped IPv6 address keys as its IPv4 address", () => {
    expect(key("::ffff:192.0.2.7")).toBe(key("192.0.2.7"));
    expect(key("::ffff:c000:207")).toBe("login:addr:192.0.2.7");
  });

  test("IPv4 addresses stay apart, one key each", () => {
    expect(key("192.0.2.7")).not.toBe(key("192.0.2.8"));
  });

  test("a peer address that is not an IP (a Unix socket, unknown) keys as itself", () => {
    expect(key("unknown")).toBe("login:addr:unknown");
  });

  test("20 failures from one address block another address in its /64", async () => {
    const first = key(`2001:db8:${++nextKey}:1::a`);
    for (let i = 0; i < LOGIN_PER_ADDRESS.freeFailures; i++) await recordFailure(database.db, first, LOGIN_PER_ADDRESS, T0);
    const neighbour = key(`2001:db8:${nextKey}:1:dead:beef:0:1`);
    await expect(assertNotThrottled(database.db, [neighbour], "blocked", T0 + 1)).rejects.toThrow(TooManyRequestsError);
  });
});
