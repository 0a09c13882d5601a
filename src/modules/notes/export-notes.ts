import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { notes, noteTags } from "../../db/schema";
import type { Database } from "../../db/client";
import { packedRow } from "../../db/packed-row";
import { preparedPerDatabase } from "../../db/prepared";
import { readStatements } from "../../db/read-statements";
import type { FileStorage } from "../files/blob-store";
import { createExportedFiles } from "../files/export-files";
import { getGraph } from "../graph/get-graph";
import { MAX_GRAPH_LIMIT } from "../graph/read-schemas";
import { exportEntryName, exportFileName } from "./export-names";
import { noteColumns, toNoteSource } from "./note-record";
import type { exportNotesInput } from "./schemas";
import { zipStream } from "./zip-stream";

const PAGE_SIZE = 100;
let exportsRunning = 0;

/**
 * A large export leaves ~20 MiB of garbage (rows, YAML, ZIP chunks) and heap that the GC gives back
 * only much later, so the process's RSS would stay ~20 MiB higher after every burst of exports (and
 * climb with the next). When the last running export has streamed more than one page, one full
 * collection (~45 ms after 10,000 notes) returns it; exports are rare next to that cost.
 */
function reclaimMemory() {
  if (exportsRunning === 0) Bun.gc(true);
}

/** What a note's file is made of besides its content (not the excerpt, which is derived from it). */
const noteFields = packedRow(noteColumns);

const userIdValue = sql.placeholder("userId");
const afterIdValue = sql.placeholder("afterId");
const idsValue = sql.placeholder("ids");
const tagValue = sql.placeholder("tag");

/**
 * A page of the export as one row: the notes' fields (see packedRow) and their contents' sizes as
 * JSON arrays, and the contents as UTF-8 bytes one after another, which is what the ZIP holds (no
 * decoding into strings and back). A row per note cost ~6 µs each to hand from libSQL to JavaScript,
 * more than SQLite took to read it. The arrays line up: the aggregates of one query see its rows in
 * one order. One statement for each combination of filters, built once per database.
 */
const pageStatements = preparedPerDatabase((db) => {
  const page = (...filters: SQL[]) => {
    // Only what the page reads: carrying the rest (the excerpt) through the subquery cost a quarter more.
    const rows = db
      .select({ ...noteColumns, content: notes.content })
      .from(notes)
      .where(and(eq(notes.userId, userIdValue), gt(notes.id, afterIdValue), ...filters))
      .orderBy(asc(notes.id))
      .limit(PAGE_SIZE);
    // The text joined, then taken as bytes: casting each note's content first cost a third more.
    return db
      .select({
        fields: sql<string>`json_group_array(${noteFields.column})`,
        sizes: sql<string>`json_group_array(octet_length(${notes.content}))`,
        // A Buffer, from the read connection and (drizzle converts it) through the client alike.
        contents: sql<Uint8Array | null>`cast(group_concat(${notes.content}, '') as blob)`,
      })
      .from(sql`(${rows}) as ${notes}`)
      .prepare();
  };
  const inIds = sql`${notes.id} in (select value from json_each(${idsValue}))`;
  const tagged = sql`exists (select 1 from ${noteTags} where ${noteTags.noteId} = ${notes.id} and ${noteTags.tag} = ${tagValue})`;
  return { all: page(), ids: page(inIds), tag: page(tagged), idsAndTag: page(inIds, tagged) };
});

function pageStatement(db: Database, input: z.infer<typeof exportNotesInput>) {
  const statements = pageStatements(db);
  if (input.ids === undefined) return input.tag === undefined ? statements.all : statements.tag;
  return input.tag === undefined ? statements.ids : statements.idsAndTag;
}

/**
 * Streams the user's matching notes as a ZIP of Markdown files with YAML front matter. Notes are
 * read a page at a time (keyset on id) only as the client consumes the stream, so memory stays
 * flat however many notes there are.
 */
export function exportNotes({ ctx, input }: { ctx: { db: Database; userId: number; files?: FileStorage }; input: z.infer<typeof exportNotesInput> }): Response {
  const headers = new Headers({
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename="${exportFileName()}"`,
    "Cache-Control": "no-store",
    // The notes' own text, packed: never to be read by a browser as anything but the ZIP it says it is.
    "X-Content-Type-Options": "nosniff",
  });
  const pictures = createExportedFiles({ db: ctx.db, userId: ctx.userId, storage: ctx.files });
  return new Response(zipStream(noteFiles(ctx.db, ctx.userId, input, pictures)), { status: 200, headers });
}

// Where a note shows a stored picture; its bytes are searched without decoding the note.
const FILE_LINK = Buffer.from("/api/files/");

async function* noteFiles(db: Database, userId: number, input: z.infer<typeof exportNotesInput>, pictures: ReturnType<typeof createExportedFiles>) {
  // The YAML writer is only needed here, so it is loaded with the first export, not at start-up.
  const { exportFrontMatter } = await import("./export-front-matter");
  const statement = pageStatement(db, input);
  const values = { userId, ids: JSON.stringify(input.ids ?? []), tag: input.tag ?? "" };
  exportsRunning += 1;
  let pages = 0;
  try {
    for (let afterId = 0; ; pages += 1) {
      // On the read connection's kept statement: through the client, each page's statement was
      // prepared again (22 ms of a 10,000-note export, profiled) and its bytes copied twice more.
      const [page] = await readStatements(db).all(statement, { ...values, afterId });
      const fields = JSON.parse(page?.fields ?? "[]") as unknown[][];
      const sizes = JSON.parse(page?.sizes ?? "[]") as number[];
      const contents = page?.contents ?? new Uint8Array(0);
      // Stored pictures become relative links to files/ (written once each, after the notes).
      const linksFiles = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength).includes(FILE_LINK);
      for (let index = 0, at = 0; index < fields.length; at += sizes[index]!, index++) {
        const note = noteFields.fromValues(fields[index]!);
        afterId = Math.max(afterId, note.id);
        const bytes = contents.subarray(at, at + sizes[index]!);
        const content = linksFiles && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(FILE_LINK)
          ? await pictures.linkNote(new TextDecoder().decode(bytes))
          : bytes;
        yield {
          name: exportEntryName(note),
          lastModified: new Date(note.updatedAt),
          input: [`---\n${exportFrontMatter(note, toNoteSource(note))}---\n\n`, content],
        };
      }
      if (fields.length < PAGE_SIZE) break;
      // libSQL answers synchronously and the ZIP stream is pulled in microtasks, so without a
      // macrotask here a large export would hold the event loop until its end and stall every other
      // request. One turn per page bounds that to the ~10 ms a page takes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    yield* pictures.entries();
    if (input.include_graph) yield { name: "graph.json", lastModified: new Date(), input: await graphFile(db, userId) };
  } finally {
    // Also when the client goes away: the ZIP stream ends this generator when it is cancelled.
    exportsRunning -= 1;
    if (exportsRunning === 0 && pages > 0) setImmediate(reclaimMemory);
  }
}

/** The graph as the viewer reads it (GET /api/knowledge-graph?limit=5000): nodes and edges, with their note ids. */
async function graphFile(db: Database, userId: number): Promise<string> {
  const { nodes, edges } = await getGraph({ ctx: { db, userId }, input: { limit: MAX_GRAPH_LIMIT, depth: 1, include_hidden: false } });
  return JSON.stringify({ nodes, edges });
}
