import { createClient, type Client } from "@libsql/client";
import type { SearchDocument } from "../../src/modules/search/search-document";
import { plainTextExcerpt } from "../../src/modules/notes/excerpt";
import { seededRandom } from "../../src/modules/graph/seeded-random";

/** Small enough that every `?tag=` page is full, large enough that tags select about a fifth of the notes. */
export const TAG_VOCABULARY = ["books", "ideas", "work", "research", "travel", "recipes", "health", "code", "journal", "meetings"];

const WORDS = (
  "system fast slow memory attention habit model evidence theory practice garden river market signal " +
  "pattern question answer method reading writing network graph concept source chapter author draft " +
  "review summary insight example problem solution design trade-off latency budget schedule project " +
  "meeting decision context detail structure process archive library index search link tag outline"
).split(" ");

/** A Markdown body of 1–2 KB with headings, emphasis, a link, a list and a quote. */
export function draftContent(random: () => number, index: number): string {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const sentence = (words: number) => {
    const parts = Array.from({ length: words }, () => pick(WORDS));
    parts[Math.floor(random() * words)] = `**${pick(WORDS)}**`;
    const text = parts.join(" ");
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 3 + Math.floor(random() * 4) }, () => sentence(8 + Math.floor(random() * 10))).join(" ");
  const target = 1024 + Math.floor(random() * 1024);
  const blocks = [`# ${sentence(4).slice(0, -1)}`, paragraph(), `See [${pick(WORDS)}](https://example.com/${pick(WORDS)}/${index}).`];
  while (blocks.join("\n\n").length < target) {
    const kind = random();
    if (kind < 0.2) blocks.push(`## ${sentence(3).slice(0, -1)}`);
    else if (kind < 0.35) blocks.push(Array.from({ length: 3 }, () => `- ${sentence(5)}`).join("\n"));
    else if (kind < 0.45) blocks.push(`> ${sentence(12)}`);
    else blocks.push(paragraph());
  }
  return blocks.join("\n\n").slice(0, 2048);
}

/** 1–3 tags from the vocabulary. */
export function draftTags(random: () => number): string[] {
  const count = 1 + Math.floor(random() * 3);
  return [...new Set(Array.from({ length: count }, () => TAG_VOCABULARY[Math.floor(random() * TAG_VOCABULARY.length)]!))];
}

// Notes reuse this many bodies under unique titles: marked's lexer takes ~1 ms a note on Bun, so
// each body is excerpted once rather than 100,000 times.
const BODY_POOL = 1000;

function bodyPool(seed: number): { content: string; excerpt: string }[] {
  const random = seededRandom(seed);
  return Array.from({ length: BODY_POOL }, (_, index) => {
    const content = draftContent(random, index);
    return { content, excerpt: plainTextExcerpt(content) };
  });
}

// One statement per batch: SQLite unpacks a JSON array of rows, which saves a prepare per note.
const INSERT_NOTES = `insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
  select ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(?)`;

/**
 * Inserts `count` notes for a user straight into the database file, one statement per batch: the
 * same rows `createNote` writes (excerpt included), while the triggers keep `note_tags` and the
 * counters right. Notes are spread over the past year, so the newest-first order is meaningful.
 */
export async function seedNotes(options: { dbFile: string; userId: number; count: number; seed: number; batchSize?: number }) {
  const random = seededRandom(options.seed);
  const bodies = bodyPool(options.seed);
  const batchSize = options.batchSize ?? 2000;
  const now = Date.now();
  const yearMs = 365 * 24 * 60 * 60 * 1000;
  const client = createClient({ url: `file:${options.dbFile}` });
  try {
    // Bench data need not survive a power cut; FULL would fsync every batch for nothing.
    await client.execute("PRAGMA synchronous = NORMAL");
    // The running service may be reading; wait for it rather than fail.
    await client.execute("PRAGMA busy_timeout = 5000");
    // 128 MiB of page cache keeps the indexes in memory while 100,000 rows go in.
    await client.execute("PRAGMA cache_size = -131072");
    for (let start = 0; start < options.count; start += batchSize) {
      const rows = [];
      for (let index = start; index < Math.min(options.count, start + batchSize); index++) {
        const body = bodies[index % BODY_POOL]!;
        const title = `${body.content.slice(2, body.content.indexOf("\n"))} (${index + 1})`;
        const createdAt = now - yearMs + Math.floor((index / options.count) * yearMs);
        const updatedAt = Math.min(now, createdAt + Math.floor(random() * 7 * 24 * 60 * 60 * 1000));
        rows.push([title, body.content, body.excerpt, JSON.stringify(draftTags(random)), createdAt, updatedAt]);
      }
      await client.execute({ sql: INSERT_NOTES, args: [options.userId, JSON.stringify(rows)] });
    }
    const [ids] = (await client.execute({ sql: "select min(id), max(id) from notes where user_id = ?", args: [options.userId] })).rows;
    return { minId: Number(ids![0]), maxId: Number(ids![1]) };
  } finally {
    client.close();
  }
}

/** Search index entries straight into `notes_fts` (documents made by the service's own code), one statement. */
export async function insertIndexEntries(client: Client, entries: [noteId: number, document: SearchDocument][]) {
  const rows = entries.map(([id, doc]) => [id, doc.scope, doc.title, doc.tags, doc.body, doc.titlePairs, doc.tagsPairs, doc.bodyPairs]);
  await client.execute({
    sql: `insert into notes_fts (rowid, scope, title, tags, body, title_pairs, tags_pairs, body_pairs)
      select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7 from json_each(?)`,
    args: [JSON.stringify(rows)],
  });
}
