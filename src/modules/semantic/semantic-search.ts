import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/client";
import { semanticUsers } from "../../db/schema";
import type { EmbeddingsClient } from "../llm/providers/openai-embeddings";
import type { SemanticQueue } from "./semantic-queue";
import { findSpace, type VectorSpace } from "./space";

/** What search by meaning needs from the outside: the embeddings server's client and the queue. */
export interface SemanticSettings {
  client: EmbeddingsClient;
  queue?: SemanticQueue;
}

/** A query's vector must come within this, or the search is answered by words alone. */
export const QUERY_DEADLINE_MS = 2000;
const CACHED_QUERIES = 256;

// Per client (one configured server), by user, model and dimensions, then text: one user's hit never answers (or times) another's query.
const cache = new WeakMap<EmbeddingsClient, Map<string, Float32Array>>();

/**
 * The query's vector, or null when the server cannot give one within QUERY_DEADLINE_MS (down,
 * refusing, slow): a search never waits longer than that for meaning. The user's recent queries are
 * kept (paging through results asks again).
 */
export async function embedQuery(client: EmbeddingsClient, userId: number, text: string): Promise<Float32Array | null> {
  let recent = cache.get(client);
  if (!recent) cache.set(client, (recent = new Map()));
  const key = JSON.stringify([userId, client.settings.model, client.settings.dimensions ?? null, text]);
  const hit = recent.get(key);
  if (hit) return hit;
  try {
    const answer = await client.embed([text], { signal: AbortSignal.timeout(QUERY_DEADLINE_MS), maxRetries: 0, purpose: "query" });
    const vector = answer.vectors[0]!;
    recent.set(key, vector);
    if (recent.size > CACHED_QUERIES) recent.delete(recent.keys().next().value!);
    return vector;
  } catch {
    return null;
  }
}

/** The space the user's search by meaning reads, or null while it is not set up or the user's notes are still being embedded. */
export async function readySpace(db: Database, semantic: SemanticSettings | undefined, userId: number): Promise<VectorSpace | null> {
  if (!semantic) return null;
  const space = await findSpace(db, semantic.client.settings);
  if (!space) return null;
  const [ready] = await db
    .select({ readyAt: semanticUsers.readyAt })
    .from(semanticUsers)
    .where(and(eq(semanticUsers.userId, userId), eq(semanticUsers.spaceKey, space.key), isNotNull(semanticUsers.readyAt)));
  return ready ? space : null;
}

/** Asks for the user's notes to be embedded (see SemanticQueue); a queue that cannot be reached is no reason to fail a write. */
export function requestEmbedding(semantic: SemanticSettings | undefined, userId: number): void {
  semantic?.queue?.enqueueEmbedding(userId).catch(() => undefined);
}
