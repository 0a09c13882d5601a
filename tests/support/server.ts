import { afterAll } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { setLogLevel } from "../../src/log";
import { startServer, type RunningServer, type ServerOptions } from "../../src/server";
import { createClient, type Client } from "@libsql/client";
import { Api } from "./api";
import { freshQueueDatabase } from "./postgres";
import { temporaryDirectory } from "./temporary-directory";

setLogLevel((process.env.TEST_LOG_LEVEL as "error" | undefined) ?? "silent");

export interface TestServer extends RunningServer {
  dataDir: string;
  dbFile: string;
  /** This server's own queue database. */
  databaseUrl: string;
  /** A second connection to the notes database, for a test to read or change it behind the API; close it after. */
  openNotesClient(): Client;
  /** Everything SQLite has written: the main file plus the write-ahead log it has not checkpointed yet. */
  writtenBytes(): Buffer;
}

/**
 * A real server on a free loopback port with its own data directory, removed on stop, and its own
 * database in the test run's one Postgres, so no server's worker takes another server's jobs.
 */
export async function startTestServer(environment: Record<string, string> = {}, options: ServerOptions = {}): Promise<TestServer> {
  const dataDir = temporaryDirectory("rhizome-test-");
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: await freshQueueDatabase(),
    // Tests never reach the internet: a fixture's pictures on public hosts (mmbiz.qpic.cn) resolve to loopback.
    IMPORT_RESOLVE: "*=127.0.0.1",
    // Reading pictures' text costs a process and its models: only the OCR tests turn it on.
    OCR: "off",
    ...environment,
  });
  const server = await withinDeadline(startServer(config, options), START_DEADLINE_MS).catch((error: unknown) => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const dbFile = path.join(dataDir, "rhizome.db");
  return {
    ...server,
    dataDir,
    dbFile,
    databaseUrl: config.databaseUrl!,
    openNotesClient: () => createClient({ url: `file:${dbFile}` }),
    writtenBytes: () => Buffer.concat([dbFile, `${dbFile}-wal`].filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file))),
    async stop() {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ServerForFile {
  server: TestServer;
  /** A client with no token; `api.newUser()` registers and logs in a user and gives its client. */
  api: Api;
  /** A connection to the notes database behind the API, for a test to read or change it. */
  db: Client;
}

/**
 * A test server for this file's tests, stopped once they are done. Call it at the top of a test file
 * (`const { server, api, db } = await serverForThisFile()`), where Bun registers the stop for the
 * whole file; inside a hook Bun runs it too early. `options` go to startServer as startTestServer's do
 * (e.g. `{ unscheduled: ["semantic-sweep"] }`).
 */
export async function serverForThisFile(environment: Record<string, string> = {}, options: ServerOptions = {}): Promise<ServerForFile> {
  const server = await startTestServer(environment, options);
  const db = server.openNotesClient();
  afterAll(async () => {
    db.close();
    await server.stop();
  });
  return { server, api: new Api(server.url), db };
}

/** startServer bounds every step itself; this only turns a regression into one failed file instead of a hung suite. */
const START_DEADLINE_MS = 90_000;

async function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the test server did not start within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
