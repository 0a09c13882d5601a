import { unheardChanges } from "../../support/changes";
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { and, eq, sql } from "drizzle-orm";
import { graphBuilds, notes } from "../../../src/db/schema";
import { applyGraphChanges } from "../../../src/modules/graph/apply-graph-changes";
import { runGraphBuild } from "../../../src/modules/graph/build-graph";
import { materializeGraph } from "../../../src/modules/graph/materialize-graph";
import type { StoredExtraction } from "../../../src/modules/graph/stored-extraction";
import { trashNote } from "../../../src/modules/history/trash";
import { insertNote, insertUser } from "../../support/graph-seed";
import { graphSnapshot } from "../../support/graph-snapshot";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
let users = 0;

// A small vocabulary with case variants and aliases, so notes share, merge and split concepts.
const NAMES = ["Rust", "rust", "Cargo", "Zig", "Kyoto", "kyoto ", "Memex", "Hypertext", "LLVM"];
const TYPES = ["technology", "place", "idea"];

const conceptArb = fc.record({
  name: fc.constantFrom(...NAMES),
  type: fc.constantFrom(...TYPES),
  description: fc.constantFrom("", "A thing.", "Another thing."),
  aliases: fc.array(fc.constantFrom(...NAMES), { maxLength: 1 }),
  start: fc.nat({ max: 3 }),
});
const extractionArb = fc
  .record({ concepts: fc.array(conceptArb, { maxLength: 4 }), relations: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom("uses", "near")), { maxLength: 3 }) })
  .map(({ concepts, relations }): StoredExtraction => ({
    concepts: concepts.map((concept) => ({
      name: concept.name,
      type: concept.type,
      description: concept.description,
      aliases: concept.aliases,
      mentions: [{ start: concept.start, end: concept.start + 2, passage: `${concept.name} here` }],
    })),
    relations:
      concepts.length === 0
        ? []
        : relations.map(([a, b, label]) => ({ source: concepts[a % concepts.length]!.name, target: concepts[b % concepts.length]!.name, label })),
  }));

type Step =
  | { kind: "create"; extraction: StoredExtraction; failed: boolean }
  | { kind: "edit"; pick: number; extraction: StoredExtraction; failed: boolean }
  | { kind: "delete"; pick: number }
  | { kind: "build" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("create" as const), extraction: extractionArb, failed: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("edit" as const), pick: fc.nat(), extraction: extractionArb, failed: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: "build" as const }) },
);

/** Saves an extraction as a build's extraction phase does: the graph is not touched until the build applies it. */
async function saveExtraction(userId: number, noteId: number, extraction: StoredExtraction, failed: boolean) {
  const result = failed ? '{"concepts":[],"relations":[]}' : JSON.stringify(extraction);
  await database.db.run(sql`insert into graph_note_extractions (note_id, user_id, content_hash, build_id, status, result, extracted_at)
    values (${noteId}, ${userId}, 'h', 1, ${failed ? "failed" : "ok"}, ${result}, 0)
    on conflict (note_id) do update set status = excluded.status, result = excluded.result, applied = 0`);
}

describe("an incremental build", () => {
  test("leaves the same graph as a full build from the same saved extractions, whatever the edits (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 14 }), async (steps) => {
        const userId = await insertUser(database.db, `prop${++users}`);
        const live: number[] = [];
        for (const step of steps) {
          if (step.kind === "create") {
            const id = await insertNote(database.db, userId, { title: "n" });
            live.push(id);
            await saveExtraction(userId, id, step.extraction, step.failed);
          } else if (step.kind === "edit" && live.length > 0) {
            await saveExtraction(userId, live[step.pick % live.length]!, step.extraction, step.failed);
          } else if (step.kind === "delete" && live.length > 0) {
            const [id] = live.splice(step.pick % live.length, 1);
            await trashNote({ ctx: { db: database.db, userId }, input: { id: id! } });
          } else if (step.kind === "build") {
            await applyGraphChanges(database.db, userId);
          }
        }
        await applyGraphChanges(database.db, userId);
        const incremental = await graphSnapshot(database.db, userId);
        await materializeGraph(database.db, userId);
        expect(incremental).toEqual(await graphSnapshot(database.db, userId));
      }),
      { numRuns: 40 },
    );
  });

  test("with the local extractor: creates, edits and deletes between builds end as a full build would (property)", async () => {
    const settings = { extractor: "local" as const, llmConcurrency: 1, anthropic: {} };
    const words = ["Rust", "Cargo", "Kyoto", "Memex", "Zig", "#garden", "[[Hypertext]]", "**Deep Work**"];
    const noteArb = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((picked) => `# Notes\n\n${picked.join(" and ")} matter.`);
    const buildOnce = async (userId: number, mode: "incremental" | "full") => {
      const [build] = await database.db
        .insert(graphBuilds)
        .values({ userId, mode, status: "building", message: "Queued", startedAt: Date.now(), updatedAt: Date.now() })
        .returning();
      await runGraphBuild({ db: database.db, settings, signal: new AbortController().signal, attempt: 1, maxAttempts: 1, changes: unheardChanges }, { buildId: build!.id, userId });
      const [done] = await database.db.select().from(graphBuilds).where(and(eq(graphBuilds.id, build!.id)));
      expect(done!.status).toBe("completed");
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.record({ op: fc.constantFrom("create", "edit", "delete", "build"), pick: fc.nat(), content: noteArb })), { minLength: 1, maxLength: 8 }),
        async (steps) => {
          const userId = await insertUser(database.db, `local${++users}`);
          const live: number[] = [];
          for (const step of steps) {
            if (step.op === "create") live.push(await insertNote(database.db, userId, { title: "Note", content: step.content }));
            else if (step.op === "edit" && live.length) await database.db.update(notes).set({ content: step.content }).where(eq(notes.id, live[step.pick % live.length]!));
            else if (step.op === "delete" && live.length) await trashNote({ ctx: { db: database.db, userId }, input: { id: live.splice(step.pick % live.length, 1)[0]! } });
            else if (step.op === "build") await buildOnce(userId, "incremental");
          }
          await buildOnce(userId, "incremental");
          const incremental = await graphSnapshot(database.db, userId);
          await materializeGraph(database.db, userId);
          expect(incremental).toEqual(await graphSnapshot(database.db, userId));
        },
      ),
      { numRuns: 15 },
    );
  });
});
