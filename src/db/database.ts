import type { Client } from "@libsql/client";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type * as schema from "./schema";

/**
 * The notes database; `$client` is the libSQL client under it (the hot paths' statements are kept
 * apart: kept-statements.ts). Its own file so the helpers client.ts opens with can name it without
 * importing client.ts back.
 */
export type Database = LibSQLDatabase<typeof schema> & { $client: Client };
