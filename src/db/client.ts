import fs from "node:fs";
import path from "node:path";
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import type { Database } from "./database";
import { createLocalFileClient } from "./local-file-client";
import { ReadStatements, setReadStatements } from "./read-statements";
import { setRelaxedWriteBatches, setWriteBatches, WriteBatches } from "./write-batches";
import * as schema from "./schema";

export type { Database } from "./database";

export interface NotesDatabase {
  db: Database;
  client: Client;
  close(): void;
}

const BUSY_TIMEOUT_MS = 5000;
const MIGRATIONS_FOLDER = path.resolve(import.meta.dir, "../../drizzle");

/**
 * Opens the notes database, applies the generated migrations and checks the settings a server
 * needs. Local files get WAL (readers never block the writer), a busy timeout on every pooled
 * connection, foreign keys, and synchronous=FULL so an acknowledged write survives power loss.
 */
export async function openNotesDatabase(options: { url: string; authToken?: string }): Promise<NotesDatabase> {
  const isFile = options.url.startsWith("file:");
  if (isFile) fs.mkdirSync(path.dirname(localPath(options.url)), { recursive: true });
  // An in-memory database is one connection's own: another would see a different, empty one.
  const localFile = isFile && localPath(options.url) !== ":memory:" ? localPath(options.url) : undefined;
  // `timeout` is applied to each connection the client's pool opens, unlike a PRAGMA run once.
  const client =
    localFile !== undefined
      ? createLocalFileClient(localFile, BUSY_TIMEOUT_MS)
      : createClient({ url: options.url, authToken: options.authToken, timeout: BUSY_TIMEOUT_MS } as Parameters<typeof createClient>[0]);
  if (isFile) {
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = FULL");
    await assertLocalSettings(client);
  }
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  const reads = new ReadStatements(client, localFile, BUSY_TIMEOUT_MS);
  setReadStatements(db, reads);
  const writes = new WriteBatches(client, localFile, BUSY_TIMEOUT_MS);
  setWriteBatches(db, writes);
  const relaxedWrites = new WriteBatches(client, localFile, BUSY_TIMEOUT_MS, "NORMAL");
  setRelaxedWriteBatches(db, relaxedWrites);
  return {
    db,
    client,
    close: () => {
      reads.close();
      writes.close();
      relaxedWrites.close();
      client.close();
    },
  };
}

async function assertLocalSettings(client: Client): Promise<void> {
  const read = async (pragma: string) => (await client.execute(`PRAGMA ${pragma}`)).rows[0]?.[0];
  const [journal, foreignKeys, busy] = [await read("journal_mode"), await read("foreign_keys"), await read("busy_timeout")];
  if (journal !== "wal" || Number(foreignKeys) !== 1 || Number(busy) < 1000) {
    throw new Error(`libSQL settings not applied: journal_mode=${journal} foreign_keys=${foreignKeys} busy_timeout=${busy}`);
  }
}

/** The file a `file:` URL names, read as libSQL reads it: no authority, query or fragment; %-escapes decoded. */
/** The file path of a `file:` URL. */
export function localPath(url: string): string {
  return decodeURIComponent(/^file:(?:\/\/[^/?#]*)?([^?#]*)/.exec(url)![1]!);
}
