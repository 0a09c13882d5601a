import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { NotFoundError } from "../../../src/modules/errors";
import { getGraph } from "../../../src/modules/graph/get-graph";
import { EXCERPT_MAX_CHARS, getGraphNode, toExcerpt } from "../../../src/modules/graph/get-graph-node";
import { getGraphInput, graphNodeDetailSchema, graphNodeIdInput } from "../../../src/modules/graph/read-schemas";
import { insertNote, insertUser, seedGraph, writeGraph, type SeededGraph } from "../../support/graph-seed";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
let alice: number;
let bob: number;
let ids: Map<string, number>;
const notes: Record<string, number> = {};

const T0 = 1_800_000_000_000;

beforeAll(async () => {
  alice = await insertUser(database.db, "alice");
  bob = await insertUser(database.db, "bob");
  notes.old = await insertNote(database.db, alice, { title: "Old reading notes", updatedAt: T0 });
  notes.new = await insertNote(database.db, alice, { title: "New reading notes", updatedAt: T0 + 1000 });
  notes.many = await insertNote(database.db, alice, { title: "Mostly about Rust", updatedAt: T0 - 1000 });
  notes.doomed = await insertNote(database.db, alice, { title: "To be deleted", updatedAt: T0 + 2000 });
  notes.bobs = await insertNote(database.db, bob, { title: "Bob's note", updatedAt: T0 + 3000 });
  ids = await writeGraph(database.db, alice, {
    nodes: [
      { label: "Rust", type: "technology", weight: 6, noteIds: [notes.old!, notes.new!, notes.many!, notes.doomed!] },
      { label: "Cargo", weight: 2 },
      { label: "Mozilla", type: "organization", weight: 3 },
      { label: "Borrow checker", weight: 1 },
      { label: "Unrelated", weight: 9 },
    ],
    edges: [
      { source: "Rust", target: "Cargo", label: "uses", weight: 2, noteIds: [notes.old!] },
      { source: "Mozilla", target: "Rust", label: "created", weight: 3 },
      { source: "Borrow checker", target: "Rust", label: "part of" },
      { source: "Rust", target: "Rust", label: "self" },
      { source: "Cargo", target: "Mozilla" },
    ],
    mentions: [
      { node: "Rust", noteId: notes.old!, start: 40, passage: "Later, Rust again." },
      { node: "Rust", noteId: notes.old!, start: 3, passage: "  Rust is a\n\tsystems   language.  " },
      { node: "Rust", noteId: notes.new!, start: 0, passage: "Rust 2024 edition." },
      { node: "Rust", noteId: notes.many!, start: 0, passage: "Rust, first." },
      { node: "Rust", noteId: notes.many!, start: 50, passage: "Rust, second." },
      { node: "Rust", noteId: notes.many!, start: 90, passage: "Rust, third." },
      { node: "Rust", noteId: notes.doomed!, start: 0, passage: "Rust in a doomed note." },
      // Never written by a real build; here to show that the join keeps other users' notes out.
      { node: "Rust", noteId: notes.bobs!, start: 0, passage: "Rust in Bob's note." },
      { node: "Cargo", noteId: notes.old!, start: 10, passage: "Cargo builds it." },
    ],
  });
  await database.db.run(sql`delete from notes where id = ${notes.doomed!}`);
});

const detail = (userId: number, id: number) => getGraphNode({ ctx: { db: database.db, userId }, input: { id } });

describe("getGraphNode", () => {
  test("returns the node with its fields", async () => {
    const { node } = await detail(alice, ids.get("Rust")!);
    expect(node).toMatchObject({ id: ids.get("Rust"), label: "Rust", type: "technology", weight: 6, degree: 3 });
    expect(node.note_ids).toEqual([notes.old!, notes.new!, notes.many!, notes.doomed!]);
  });

  test("neighbours are the nodes one edge away in either direction, heaviest first, itself excluded", async () => {
    const { neighbours } = await detail(alice, ids.get("Rust")!);
    expect(neighbours.map((node) => node.label)).toEqual(["Mozilla", "Cargo", "Borrow checker"]);
  });

  test("edges are those touching the node, heaviest first", async () => {
    const { edges } = await detail(alice, ids.get("Rust")!);
    expect(edges.map((edge) => edge.label)).toEqual(["created", "uses", "part of", "self"]);
    expect(edges[1]).toMatchObject({ source: ids.get("Rust"), target: ids.get("Cargo"), weight: 2, note_ids: [notes.old!] });
    expect(edges.some((edge) => edge.source === ids.get("Cargo") && edge.target === ids.get("Mozilla"))).toBe(false);
  });

  test("notes: most mentions first, then newest; the excerpt is the first passage, whitespace tidied", async () => {
    const { notes: linked } = await detail(alice, ids.get("Rust")!);
    expect(linked).toEqual([
      { id: notes.many!, title: "Mostly about Rust", excerpt: "Rust, first." },
      { id: notes.old!, title: "Old reading notes", excerpt: "Rust is a systems language." },
      { id: notes.new!, title: "New reading notes", excerpt: "Rust 2024 edition." },
    ]);
  });

  test("deleted notes and other users' notes do not appear", async () => {
    const { notes: linked } = await detail(alice, ids.get("Rust")!);
    expect(linked.map((note) => note.id)).not.toContain(notes.doomed!);
    expect(linked.map((note) => note.id)).not.toContain(notes.bobs!);
  });

  test("a node with no edges and no mentions has empty lists", async () => {
    expect(await detail(alice, ids.get("Unrelated")!)).toMatchObject({ neighbours: [], edges: [], notes: [] });
  });

  test("the result matches the output schema", async () => {
    expect(graphNodeDetailSchema.safeParse(await detail(alice, ids.get("Rust")!)).success).toBe(true);
  });

  test("a missing node is a NotFoundError", async () => {
    await expect(detail(alice, 9_999_999)).rejects.toBeInstanceOf(NotFoundError);
  });

  test("another user's node is a NotFoundError", async () => {
    await expect(detail(bob, ids.get("Rust")!)).rejects.toBeInstanceOf(NotFoundError);
  });

  test("the id input is coerced from a path string", () => {
    expect(graphNodeIdInput.parse({ id: "42" })).toEqual({ id: 42 });
    expect(graphNodeIdInput.safeParse({ id: "0" }).success).toBe(false);
    expect(graphNodeIdInput.safeParse({ id: "x" }).success).toBe(false);
  });
});

describe("getGraphNode on a seeded graph", () => {
  let carol: number;
  let seeded: SeededGraph;

  beforeAll(async () => {
    carol = await insertUser(database.db, "carol");
    seeded = await seedGraph(database.db, carol, { nodes: 400, edges: 1600, seed: 3 });
  });

  test("neighbours are the depth-1 neighbourhood less the node, and every linked note has an excerpt", async () => {
    for (const id of [seeded.nodeIds[0]!, seeded.nodeIds[200]!]) {
      const found = await getGraphNode({ ctx: { db: database.db, userId: carol }, input: { id } });
      const around = await getGraph({ ctx: { db: database.db, userId: carol }, input: getGraphInput.parse({ node: id, limit: 5000 }) });
      expect(found.neighbours.map((node) => node.id).sort((a, b) => a - b)).toEqual(
        around.nodes
          .map((node) => node.id)
          .filter((other) => other !== id)
          .sort((a, b) => a - b),
      );
      expect(found.edges.every((edge) => edge.source === id || edge.target === id)).toBe(true);
      expect(found.notes.map((note) => note.id).sort((a, b) => a - b)).toEqual(found.node.note_ids);
      for (const note of found.notes) expect(note.excerpt).toContain(found.node.label);
    }
  });
});

describe("toExcerpt", () => {
  test("short passages are only tidied", () => {
    expect(toExcerpt("  a\n b  ")).toBe("a b");
  });

  test("long passages are cut at a word boundary with an ellipsis", () => {
    const excerpt = toExcerpt("word ".repeat(200));
    expect(Array.from(excerpt).length).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(excerpt.endsWith("word…")).toBe(true);
  });

  test("a long passage without spaces is cut by characters, never inside a surrogate pair", () => {
    const excerpt = toExcerpt("😀".repeat(400));
    expect(Array.from(excerpt)).toHaveLength(EXCERPT_MAX_CHARS);
    expect(excerpt.endsWith("😀…")).toBe(true);
  });
});
