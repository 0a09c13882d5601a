import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { semanticSpaces } from "../../db/schema";
import type { EmbeddingsSettings } from "../llm/providers/openai-embeddings";
import { STORED_VECTOR_TYPE } from "./stored-vector";

/** What decides which vectors may be compared. */
export type SpaceSettings = Pick<EmbeddingsSettings, "model" | "dimensions" | "documentPrefix">;

/** One model's vectors: the table they live in and their length. */
export interface VectorSpace {
  key: string;
  model: string;
  dimensions: number;
  table: string;
  index: string;
}

/**
 * The space a configuration embeds into: the model and the dimensions asked for (another model, or
 * the same model shortened, gives vectors that must never be compared), and how the table stores
 * them. The base URL is left out: the same model served elsewhere gives the same vectors.
 */
export function spaceKey(settings: SpaceSettings): string {
  // A document prefix changes every stored vector (a query prefix none).
  const prefix = settings.documentPrefix ? `\n${settings.documentPrefix}` : "";
  return keyOf(`${settings.model}\n${settings.dimensions ?? "native"}\n${STORED_VECTOR_TYPE}${prefix}`);
}

/**
 * The same model's space as the first release stored it (FLOAT32, keyed without a type). Its
 * vectors fill the current space without a call to the embeddings server (re-used by content hash,
 * as an unchanged passage is), and it is dropped once nothing is left to fill.
 */
export function previousLayoutKey(settings: SpaceSettings): string {
  return keyOf(`${settings.model}\n${settings.dimensions ?? "native"}`);
}

function keyOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

const known = new WeakMap<Database, Map<string, VectorSpace>>();

/** The configured model's space, once its first vectors have made it; null before. */
export async function findSpace(db: Database, settings: SpaceSettings): Promise<VectorSpace | null> {
  return spaceOf(db, spaceKey(settings));
}

/**
 * The configured model's space in the previous layout, while it still holds vectors to re-use; none
 * for a model that now gets a document prefix (its vectors were made without one).
 */
export async function findPreviousLayout(db: Database, settings: SpaceSettings): Promise<VectorSpace | null> {
  return settings.documentPrefix ? null : spaceOf(db, previousLayoutKey(settings));
}

async function spaceOf(db: Database, key: string): Promise<VectorSpace | null> {
  const cached = known.get(db)?.get(key);
  if (cached) return cached;
  const [row] = await db.select().from(semanticSpaces).where(eq(semanticSpaces.key, key));
  if (!row) return null;
  return remember(db, { key, model: row.model, dimensions: row.dimensions, table: row.tableName, index: `${row.tableName}_ann` });
}

/**
 * The space for vectors of `dimensions`, its table made on first use: a libSQL vector column
 * (STORED_VECTOR_TYPE of the model's length) with its DiskANN index. Neighbours are kept as 1-bit
 * vectors, 32 a node: with FLOAT8 vectors, 4.6 KiB a passage at 384 dimensions and 7.4 KiB at 1,024,
 * the index finding 0.99 of the exact top 10 (bench:semantic). On FLOAT32 and random vectors, 16
 * neighbours gave recall@10 0.43 and a search twice as slow; 8-bit neighbours 0.86, but over 8 KiB a
 * row. Candidates are ranked again by exact cosine distance, so the compression costs recall only.
 */
export async function ensureSpace(db: Database, settings: SpaceSettings, dimensions: number): Promise<VectorSpace> {
  const existing = await findSpace(db, settings);
  if (existing) return existing;
  const key = spaceKey(settings);
  const table = `semantic_vectors_${key}`;
  await db.$client.batch(
    [
      `create table if not exists ${table} (
        id integer primary key,
        user_id integer not null,
        note_id integer,
        node_id integer,
        kind text not null,
        start integer not null default 0,
        "end" integer not null default 0,
        hash text not null,
        embedding ${STORED_VECTOR_TYPE}(${dimensions}) not null)`,
      `create index if not exists ${table}_user_hash on ${table} (user_id, hash)`,
      `create index if not exists ${table}_note on ${table} (note_id)`,
      `create index if not exists ${table}_user_kind on ${table} (user_id, kind)`,
      `create index if not exists ${table}_ann on ${table} (libsql_vector_idx(embedding, 'metric=cosine', 'compress_neighbors=float1bit', 'max_neighbors=32'))`,
      {
        sql: "insert or ignore into semantic_spaces (key, model, dimensions, table_name, created_at) values (:key, :model, :dimensions, :table, :now)",
        args: { key, model: settings.model, dimensions, table, now: Date.now() },
      },
    ],
    "write",
  );
  const space = await findSpace(db, settings);
  if (!space) throw new Error(`the vector space ${key} was not recorded`);
  return space;
}

/**
 * Drops the vectors of every other model: they are never read once the model changed (search stays
 * lexical until the new model's backfill is done), and each is a table the size of the notes. The
 * configured model's previous layout is kept while some note is still to be embedded.
 */
export async function dropOtherSpaces(db: Database, settings: SpaceSettings): Promise<string[]> {
  const current = spaceKey(settings);
  const previous = previousLayoutKey(settings);
  const pending = await db.$client.execute({
    sql: "select 1 from notes n left join semantic_notes s on s.note_id = n.id and s.space_key = :space where s.note_id is null limit 1",
    args: { space: current },
  });
  const keep = pending.rows.length > 0 && !settings.documentPrefix ? new Set([current, previous]) : new Set([current]);
  const others = (await db.select().from(semanticSpaces)).filter((row) => !keep.has(row.key));
  for (const row of others) {
    await db.$client.batch(
      [`drop table if exists ${row.tableName}`, { sql: "delete from semantic_spaces where key = :key", args: { key: row.key } }, { sql: "delete from semantic_users where space_key = :key", args: { key: row.key } }],
      "write",
    );
    known.get(db)?.delete(row.key);
  }
  return others.map((row) => row.model);
}

function remember(db: Database, space: VectorSpace): VectorSpace {
  let byKey = known.get(db);
  if (!byKey) known.set(db, (byKey = new Map()));
  byKey.set(space.key, space);
  return space;
}
