import { openNotesDatabase } from "./db/client";
import { createHttpApp } from "./http/app";
import { buildOpenApiDocument } from "./http/openapi-document";
import type { Config } from "./config";
import { createSecretBox } from "./modules/auth/secret-box";
import { appRouter } from "./trpc/root";
import { log } from "./log";

/** The largest request body any route takes: import tasks carry saved pages of up to 10 MiB. */
export const MAX_BODY_BYTES = 12 * 1024 * 1024;

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Opens the notes database (migrating it) and serves the API until `stop()`. */
export async function startServer(config: Config): Promise<RunningServer> {
  const notesDb = await openNotesDatabase({ url: config.libsqlUrl, authToken: config.libsqlAuthToken });
  const secretBox = await createSecretBox({ secretKey: config.secretKey, dataDir: config.dataDir });
  const app = createHttpApp({
    router: appRouter,
    services: { db: notesDb.db, secretBox },
    document: buildOpenApiDocument(appRouter),
    maxBodyBytes: MAX_BODY_BYTES,
    checkHealth: async () => {
      await notesDb.client.execute("select 1");
    },
  });
  app.listen({ port: config.port, hostname: config.host });
  const port = app.server!.port!;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  log.info(`Rhizome API listening on ${url} (docs at ${url}/docs)`);
  return {
    url,
    port,
    async stop() {
      await app.stop();
      notesDb.close();
    },
  };
}
