import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { setLogLevel } from "../../src/log";
import { startServer, type RunningServer } from "../../src/server";
import pg from "pg";
import { getTestPostgres } from "./postgres";

setLogLevel((process.env.TEST_LOG_LEVEL as "error" | undefined) ?? "silent");

export interface TestServer extends RunningServer {
  dataDir: string;
  dbFile: string;
  /** This server's own queue database. */
  databaseUrl: string;
}

/**
 * A real server on a free loopback port with its own data directory, removed on stop, and its own
 * database in the test run's one Postgres, so no server's worker takes another server's jobs.
 */
export async function startTestServer(environment: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: await freshQueueDatabase(),
    ...environment,
  });
  const server = await startServer(config);
  return {
    ...server,
    dataDir,
    dbFile: path.join(dataDir, "rhizome.db"),
    databaseUrl: config.databaseUrl!,
    async stop() {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let databases = 0;

async function freshQueueDatabase(): Promise<string> {
  const { connectionString } = await getTestPostgres();
  const name = `rhizome_test_${process.pid}_${++databases}`;
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(connectionString);
  url.pathname = `/${name}`;
  return url.toString();
}
