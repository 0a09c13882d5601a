import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Database } from "../../../src/db/client";
import { materializeGraph } from "../../../src/modules/graph/materialize-graph";
import type { StoredExtraction } from "../../../src/modules/graph/stored-extraction";
import { trashNote } from "../../../src/modules/history/trash";
import { insertNote, insertUser } from "../../support/graph-seed";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
let alice: number;

beforeAll(async () => {
  alice = await insertUser(database.db, "alice");
});

const mention = (start: number, name: string) => ({ start, end: start + name.length, passage: `${name} here.` });

async function saveExtraction(noteId: number, extraction: StoredExtraction): Promise<void> {
  await database.db.run(sql`insert into graph_note_extractions (note_id, user_id, content_hash, build_id, status, result, extracted_at)
    values (${noteId}, ${alice}, 'hash', 1, 'ok', ${JSON.stringify(extraction)}, 0)`);
}

describe("materializeGraph", () => {
  test("a note deleted while the graph is being computed does not come back into it", async () => {
    const kept = await insertNote(database.db, alice, { title: "Kept", content: "Rust and Cargo" });
    const doomed = await insertNote(database.db, alice, { title: "Doomed", content: "Rust and Zig" });
    const concept = (name: string, start: number) => ({ name, type: "technology", description: "", aliases: [], mentions: [mention(start, name)] });
    await saveExtraction(kept, { concepts: [concept("Rust", 0), concept("Cargo", 9), concept("Cargo", 9)], relations: [{ source: "Rust", target: "Cargo", label: "uses" }, { source: "rust", target: "cargo", label: "Uses" }] });
    await saveExtraction(doomed, { concepts: [concept("Rust", 0), concept("Zig", 9)], relations: [{ source: "Rust", target: "Zig", label: "uses" }] });

    // The deletion lands after the extractions were read, just before the graph is written.
    const racing = new Proxy(database.db, {
      get(target, property, receiver) {
        if (property !== "transaction") return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Database["transaction"]>) => {
          await trashNote({ ctx: { db: target, userId: alice }, input: { id: doomed } });
          return target.transaction(...args);
        };
      },
    });
    expect(await materializeGraph(racing, alice)).toMatchObject({ nodes: 2, edges: 1 });

    const nodes = await database.db.all<{ label: string; weight: number; note_ids: string }>(sql`select label, weight, note_ids from graph_nodes order by label`);
    expect(nodes).toEqual([
      { label: "Cargo", weight: 1, note_ids: `[${kept}]` },
      { label: "Rust", weight: 1, note_ids: `[${kept}]` },
    ]);
    // One note stating a relation twice weighs one, as deleting that note takes off.
    expect(await database.db.all(sql`select weight, note_ids from graph_edges`)).toEqual([{ weight: 1, note_ids: `[${kept}]` }]);
  });
});
