import { expect, test } from "bun:test";
import pg from "pg";
import { silentLog } from "../../src/jobs/log";
import { createQueue } from "../../src/jobs/queue";
import { getTestPostgres } from "../support/postgres";

test("an API process creates the queue's schema on a fresh database, and leaves an existing one alone", async () => {
  const { connectionString } = await getTestPostgres();
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  const name = `rhizome_migrate_${process.pid}`;
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  const queue = createQueue({ connectionString: url.toString(), tasks: [], log: silentLog });
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await queue.migrateIfMissing();
    const applied = await client.query("select count(*)::int as n from graphile_worker.migrations");
    expect(applied.rows[0].n).toBeGreaterThan(0);
    await client.query("insert into graphile_worker.migrations (id) values (999999)");
    await queue.migrateIfMissing();
    const after = await client.query("select count(*)::int as n from graphile_worker.migrations");
    expect(after.rows[0].n).toBe(applied.rows[0].n + 1);
  } finally {
    await client.end();
    await queue.close();
  }
});
