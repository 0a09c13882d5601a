import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { NotFoundError } from "../../../src/modules/errors";
import { computeGraphMetrics } from "../../../src/modules/graph/graph-metrics";
import { trashNote } from "../../../src/modules/history/trash";
import { insertUser, seedGraph, type SeededGraph } from "../../support/graph-seed";
import { notesDatabaseForThisFile } from "../../support/notes-database";

interface NodeRow {
  id: number;
  user_id: number;
  weight: number;
  degree: number;
  community: number;
  label: string;
  note_ids: string;
}
interface EdgeRow {
  id: number;
  source_id: number;
  target_id: number;
  weight: number;
  note_ids: string;
}

const database = await notesDatabaseForThisFile();
let alice: number;
let bob: number;
let seeded: SeededGraph;
let bobs: SeededGraph;

const snapshot = async () => ({
  nodes: new Map((await database.db.all<NodeRow>(sql`select id, user_id, weight, degree, community, label, note_ids from graph_nodes`)).map((row) => [row.id, row])),
  edges: new Map((await database.db.all<EdgeRow>(sql`select id, source_id, target_id, weight, note_ids from graph_edges`)).map((row) => [row.id, row])),
  mentions: await database.db.all<{ node_id: number; note_id: number }>(sql`select node_id, note_id from graph_mentions`),
});
const listed = (row: { note_ids: string }, noteId: number) => (JSON.parse(row.note_ids) as number[]).includes(noteId);

beforeAll(async () => {
  alice = await insertUser(database.db, "alice");
  bob = await insertUser(database.db, "bob");
  seeded = await seedGraph(database.db, alice, { nodes: 600, edges: 2400, notes: 120, seed: 7 });
  bobs = await seedGraph(database.db, bob, { nodes: 50, edges: 100, notes: 10, seed: 8 });
});

describe("deleting a note", () => {
  test("changes only the rows of the note's concepts, and leaves them as a rebuild would count them", async () => {
    const before = await snapshot();
    // The note with the most concepts that no other note has, so some nodes must disappear.
    const noteId = seeded.noteIds
      .map((id) => ({ id, alone: [...before.nodes.values()].filter((node) => node.note_ids === `[${id}]`).length }))
      .sort((a, b) => b.alone - a.alone)[0]!.id;
    const concepts = new Set(before.mentions.filter((mention) => mention.note_id === noteId).map((mention) => mention.node_id));
    const mentionsOf = (nodeId: number) => before.mentions.filter((mention) => mention.node_id === nodeId && mention.note_id === noteId).length;
    expect([...concepts].some((id) => before.nodes.get(id)!.note_ids === `[${noteId}]`)).toBe(true);

    await trashNote({ ctx: { db: database.db, userId: alice }, input: { id: noteId } });
    const after = await snapshot();

    expect(after.mentions.some((mention) => mention.note_id === noteId)).toBe(false);
    for (const row of [...after.nodes.values(), ...after.edges.values()]) expect(listed(row, noteId)).toBe(false);

    const gone = new Set([...concepts].filter((id) => before.nodes.get(id)!.note_ids === `[${noteId}]`));
    for (const [id, node] of before.nodes) {
      const now = after.nodes.get(id);
      if (gone.has(id)) {
        expect(now).toBeUndefined();
        continue;
      }
      if (!concepts.has(id)) {
        // Another concept keeps everything but its degree, which the edges below check.
        expect({ ...now!, degree: 0 }).toEqual({ ...node, degree: 0 });
        continue;
      }
      const noteIds = (JSON.parse(node.note_ids) as number[]).filter((other) => other !== noteId);
      expect(now).toEqual({ ...node, degree: now!.degree, weight: node.weight - mentionsOf(id), note_ids: JSON.stringify(noteIds) });
    }

    for (const [id, edge] of before.edges) {
      const now = after.edges.get(id);
      const noteIds = (JSON.parse(edge.note_ids) as number[]).filter((other) => other !== noteId);
      if (gone.has(edge.source_id) || gone.has(edge.target_id) || noteIds.length === 0) expect(now).toBeUndefined();
      else if (!listed(edge, noteId)) expect(now).toEqual(edge);
      else expect(now).toEqual({ ...edge, weight: noteIds.length, note_ids: JSON.stringify(noteIds) });
    }

    // Every degree, in both users' graphs, is still the number of distinct neighbours.
    const metrics = computeGraphMetrics(
      [...after.nodes.keys()],
      [...after.edges.values()].map((edge) => ({ sourceId: edge.source_id, targetId: edge.target_id, weight: edge.weight })),
    );
    for (const [id, node] of after.nodes) expect([id, node.degree]).toEqual([id, metrics.get(id)!.degree]);
    expect([...after.nodes.values()].filter((node) => node.user_id === bob)).toHaveLength(bobs.nodeIds.length);
  });

  test("another user's note is a 404 and their graph is untouched", async () => {
    const before = await snapshot();
    const call = trashNote({ ctx: { db: database.db, userId: alice }, input: { id: bobs.noteIds[0]! } });
    await expect(call).rejects.toBeInstanceOf(NotFoundError);
    expect(await snapshot()).toEqual(before);
  });
});
