import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { openNotesDatabase, type NotesDatabase } from "../../../src/db/client";
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

const POLICY: ThrottlePolicy = { freeFailures: 3, windowMs: 10_000, baseBlockMs: 1_000, maxBlockMs: 8_000 };
const T0 = 1_800_000_000_000;

let dir: string;
let database: NotesDatabase;
let nextKey = 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-throttle-"));
  database = await openNotesDatabase({ url: `file:${path.join(dir, "test.db")}` });
});
afterAll(() => {
  database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

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
