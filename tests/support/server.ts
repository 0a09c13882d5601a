import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { setLogLevel } from "../../src/log";
import { startServer, type RunningServer } from "../../src/server";

setLogLevel((process.env.TEST_LOG_LEVEL as "error" | undefined) ?? "silent");

export interface TestServer extends RunningServer {
  dataDir: string;
  dbFile: string;
}

/** A real server on a free loopback port with its own data directory, removed on stop. */
export async function startTestServer(environment: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-test-"));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", ...environment });
  const server = await startServer(config);
  return {
    ...server,
    dataDir,
    dbFile: path.join(dataDir, "rhizome.db"),
    async stop() {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
