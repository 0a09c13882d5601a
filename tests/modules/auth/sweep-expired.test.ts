import { unheardChanges } from "../../support/changes";
import { beforeAll, describe, expect, test } from "bun:test";
import { inArray } from "drizzle-orm";
import { sessions, throttles, users } from "../../../src/db/schema";
import { createJobCatalogue } from "../../../src/jobs/catalogue";
import { createQueue } from "../../../src/jobs/queue";
import { sweepExpiredAuthRows } from "../../../src/modules/auth/sweep-expired";
import { assertNotThrottled, LOGIN_PER_USERNAME, recordFailure } from "../../../src/modules/auth/throttle";
import { getTestPostgres, testLog } from "../../support/postgres";
import { until } from "../../support/until";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const HOUR = 60 * 60 * 1000;

const database = await notesDatabaseForThisFile();
let userId: number;
let nextId = 0;

beforeAll(async () => {
  [{ id: userId }] = (await database.db
    .insert(users)
    .values({ username: "sweeper", usernameKey: "sweeper", passwordHash: "x", createdAt: Date.now() })
    .returning({ id: users.id })) as [{ id: number }];
});

/** An expired full session, an abandoned pending TOTP login, and two live ones; a spent throttle row, a blocking one, a recent one. */
async function seed(now: number) {
  const id = (label: string) => `${label}-${++nextId}`;
  const rows = {
    expired: id("expired"),
    abandonedPending: id("pending-old"),
    live: id("live"),
    livePending: id("pending-live"),
  };
  await database.db.insert(sessions).values([
    { id: rows.expired, userId, expiresAt: now - 1, pendingTotp: false, createdAt: now - 31 * 24 * HOUR },
    { id: rows.abandonedPending, userId, expiresAt: now - HOUR, pendingTotp: true, createdAt: now - HOUR - 5 * 60_000 },
    { id: rows.live, userId, expiresAt: now + 24 * HOUR, pendingTotp: false, createdAt: now },
    { id: rows.livePending, userId, expiresAt: now + 60_000, pendingTotp: true, createdAt: now },
  ]);
  const keys = { spent: id("login:user:gone"), blocking: id("login:user:blocked"), recent: id("login:user:recent") };
  await database.db.insert(throttles).values([
    { key: keys.spent, failures: 3, windowStartedAt: now - 2 * HOUR, blockedUntil: 0 },
    // Its window started long ago but a block is still running: it must stay.
    { key: keys.blocking, failures: 9, windowStartedAt: now - 2 * HOUR, blockedUntil: now + 60_000 },
    { key: keys.recent, failures: 2, windowStartedAt: now - 60_000, blockedUntil: 0 },
  ]);
  return { sessions: rows, throttles: keys };
}

async function sessionIds(ids: string[]) {
  return (await database.db.select({ id: sessions.id }).from(sessions).where(inArray(sessions.id, ids))).map((row) => row.id).sort();
}
async function throttleKeys(keys: string[]) {
  return (await database.db.select({ key: throttles.key }).from(throttles).where(inArray(throttles.key, keys))).map((row) => row.key).sort();
}

describe("the auth sweep", () => {
  test("deletes expired sessions and abandoned pending logins, and keeps live ones", async () => {
    const now = Date.now();
    const { sessions: rows } = await seed(now);
    const swept = await sweepExpiredAuthRows(database.db, now);
    expect(swept.sessions).toBeGreaterThanOrEqual(2);
    expect(await sessionIds(Object.values(rows))).toEqual([rows.live, rows.livePending].sort());
  });

  test("deletes throttle rows that block nothing and whose window is over, and keeps running blocks and recent failures", async () => {
    const now = Date.now();
    const { throttles: keys } = await seed(now);
    await sweepExpiredAuthRows(database.db, now);
    expect(await throttleKeys(Object.values(keys))).toEqual([keys.blocking, keys.recent].sort());
    await expect(assertNotThrottled(database.db, [keys.blocking], "blocked", now)).rejects.toThrow("blocked");
  });

  test("forgetting a spent row changes no decision: the next failure starts a fresh window either way", async () => {
    const now = Date.now();
    const key = `login:user:forgotten-${++nextId}`;
    for (let i = 0; i < LOGIN_PER_USERNAME.freeFailures - 1; i++) await recordFailure(database.db, key, LOGIN_PER_USERNAME, now - 2 * HOUR);
    await sweepExpiredAuthRows(database.db, now);
    expect(await throttleKeys([key])).toEqual([]);
    await recordFailure(database.db, key, LOGIN_PER_USERNAME, now);
    const [row] = await database.db.select().from(throttles).where(inArray(throttles.key, [key]));
    expect(row).toMatchObject({ failures: 1, windowStartedAt: now, blockedUntil: 0 });
  });

  test("runs as the catalogue's hourly auth-sweep task through the real queue", async () => {
    const now = Date.now();
    const { sessions: rows, throttles: keys } = await seed(now);
    const { connectionString } = await getTestPostgres();
    const catalogue = createJobCatalogue({
      db: database.db,
      imports: { allowPrivateNetworks: false },
      changes: unheardChanges,
      graph: { extractor: "local", llmConcurrency: 1, anthropic: {} },
    });
    const sweep = catalogue.find((task) => task.name === "auth-sweep")!;
    expect(sweep.schedule).toBe("17 * * * *");
    // Only this task, so this worker never takes another test's import or build jobs on the shared database.
    const queue = createQueue({ connectionString, tasks: [sweep], log: testLog });
    await queue.migrate();
    const worker = await queue.startWorker({ concurrency: 1 });
    try {
      const jobKey = `test-sweep-${crypto.randomUUID()}`;
      expect(await queue.enqueue("auth-sweep", {}, { jobKey })).not.toBeNull();
      await until(async () => !(await queue.jobExists(jobKey)), { what: "the sweep job to finish" });
    } finally {
      await worker.stop();
      await queue.close();
    }
    expect(await sessionIds(Object.values(rows))).toEqual([rows.live, rows.livePending].sort());
    expect(await throttleKeys(Object.values(keys))).toEqual([keys.blocking, keys.recent].sort());
  }, 30_000);
});
