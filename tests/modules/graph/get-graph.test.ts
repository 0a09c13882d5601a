import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { NotFoundError } from "../../../src/modules/errors";
import { getGraph } from "../../../src/modules/graph/get-graph";
import { getGraphInput, type KnowledgeGraph } from "../../../src/modules/graph/read-schemas";
import { insertUser, seedGraph, writeGraph, type SeededGraph } from "../../support/graph-seed";
import { notesDatabaseForThisFile } from "../../support/notes-database";

const database = await notesDatabaseForThisFile();
let alice: number;
let bob: number;
let aliceGraph: SeededGraph;
let bobGraph: SeededGraph;

beforeAll(async () => {
  alice = await insertUser(database.db, "alice");
  bob = await insertUser(database.db, "bob");
  aliceGraph = await seedGraph(database.db, alice, { nodes: 600, edges: 2400, seed: 1 });
  bobGraph = await seedGraph(database.db, bob, { nodes: 300, edges: 1200, seed: 2 });
});

const read = (userId: number, input: Record<string, unknown> = {}) => getGraph({ ctx: { db: database.db, userId }, input: getGraphInput.parse(input) });

/** All of a user's edges as `source>target` pairs, straight from the table. */
async function allEdges(userId: number): Promise<{ id: number; source: number; target: number }[]> {
  return database.db.all(sql`select id, source_id as source, target_id as target from graph_edges where user_id = ${userId}`);
}

/** A pair of nodes whichever way round: a reader sees one edge per pair, however many rows state it. */
const pairOf = (edge: { source: number; target: number }) => (edge.source < edge.target ? `${edge.source}|${edge.target}` : `${edge.target}|${edge.source}`);
const pairCount = (edges: { source: number; target: number }[]) => new Set(edges.map(pairOf)).size;

function expectEdgesExactlyAmong(graph: KnowledgeGraph, everyEdge: { id: number; source: number; target: number }[]) {
  const ids = new Set(graph.nodes.map((node) => node.id));
  const among = everyEdge.filter((edge) => ids.has(edge.source) && ids.has(edge.target));
  const expected = [...new Set(among.map(pairOf))].sort();
  expect(graph.edges.map(pairOf).sort()).toEqual(expected);
  // Each edge is one of its pair's rows, carrying every note of them.
  const rowIds = new Set(among.map((edge) => edge.id));
  for (const edge of graph.edges) expect(rowIds.has(edge.id)).toBe(true);
}

/** a–b–c–d–e with edges pointing both ways along the chain, plus a heavy node far away. */
async function chain(userId: number) {
  return writeGraph(database.db, userId, {
    nodes: [
      { label: "a", weight: 1 },
      { label: "b", weight: 2 },
      { label: "c", weight: 3 },
      { label: "d", weight: 4 },
      { label: "e", weight: 50 },
    ],
    edges: [
      { source: "a", target: "b" },
      { source: "c", target: "b" },
      { source: "c", target: "d" },
      { source: "e", target: "d" },
    ],
  });
}

describe("getGraphInput", () => {
  test("may be omitted: 500 heaviest, depth 1", () => {
    expect(getGraphInput.parse(undefined)).toEqual({ limit: 500, depth: 1, include_hidden: false });
  });

  test("limit is 1..5000 and depth 1..3", () => {
    expect(getGraphInput.safeParse({ limit: 5000 }).success).toBe(true);
    for (const bad of [{ limit: 0 }, { limit: 5001 }, { depth: 0 }, { depth: 4 }, { node: 0 }, { limit: 1.5 }]) {
      expect(getGraphInput.safeParse(bad).success).toBe(false);
    }
  });
});

describe("getGraph without a node", () => {
  test("returns the heaviest nodes first, ties by id, up to the limit", async () => {
    const graph = await read(alice, { limit: 50 });
    expect(graph.nodes.map((node) => node.id)).toEqual(aliceGraph.nodeIds.slice(0, 50));
    for (let i = 1; i < graph.nodes.length; i++) {
      const [previous, current] = [graph.nodes[i - 1]!, graph.nodes[i]!];
      expect(previous.weight > current.weight || (previous.weight === current.weight && previous.id < current.id)).toBe(true);
    }
  });

  test("the default limit is 500", async () => {
    expect((await read(alice)).nodes).toHaveLength(500);
  });

  test("returns exactly the edges whose two ends are among the returned nodes", async () => {
    const everyEdge = await allEdges(alice);
    for (const limit of [1, 20, 200, 400, 600]) expectEdgesExactlyAmong(await read(alice, { limit }), everyEdge);
  });

  test("a limit above the graph's size returns all of it", async () => {
    const graph = await read(alice, { limit: 5000 });
    expect(graph.nodes).toHaveLength(600);
    expect(graph.edges).toHaveLength(pairCount(await allEdges(alice)));
  });

  test("nodes and edges carry the API's fields, note ids parsed", async () => {
    const graph = await read(alice, { limit: 10 });
    const node = graph.nodes[0]!;
    expect(Object.keys(node).sort()).toEqual(["aliases", "community", "degree", "description", "id", "label", "note_ids", "type", "weight"]);
    expect(node.note_ids.length).toBeGreaterThan(0);
    expect(node.note_ids).toEqual([...node.note_ids].sort((a, b) => a - b));
    for (const noteId of node.note_ids) expect(aliceGraph.noteIds).toContain(noteId);
    const edge = graph.edges[0]!;
    expect(Object.keys(edge).sort()).toEqual(["id", "label", "note_ids", "source", "target", "weight"]);
    expect(Array.isArray(edge.note_ids)).toBe(true);
  });

  test("stats count what was returned, the user's totals, and the distinct communities", async () => {
    const graph = await read(alice, { limit: 100 });
    expect(graph.stats).toEqual({
      nodes: 100,
      edges: graph.edges.length,
      total_nodes: 600,
      total_edges: pairCount(await allEdges(alice)),
      communities: new Set(graph.nodes.map((node) => node.community)).size,
    });
    expect(graph.stats.communities).toBeGreaterThan(1);
  });

  test("another user's nodes and edges never appear", async () => {
    const graph = await read(alice, { limit: 5000 });
    const bobNodes = new Set(bobGraph.nodeIds);
    const bobEdges = new Set((await allEdges(bob)).map((edge) => edge.id));
    expect(graph.nodes.some((node) => bobNodes.has(node.id))).toBe(false);
    expect(graph.edges.some((edge) => bobEdges.has(edge.id))).toBe(false);
    expect((await read(bob, { limit: 5000 })).stats.total_nodes).toBe(300);
  });

  test("every edge of the user's is read, whether the user's edges lie together or among another user's", async () => {
    const [erin, frank] = [await insertUser(database.db, "erin"), await insertUser(database.db, "frank")];
    const labels = ["p", "q", "r", "s", "t", "u"];
    const nodeIds = new Map([
      [erin, await writeGraph(database.db, erin, { nodes: labels.map((label) => ({ label })) })],
      [frank, await writeGraph(database.db, frank, { nodes: labels.map((label) => ({ label })) })],
    ]);
    const insertEdge = (userId: number, pair: string) =>
      database.db.run(sql`insert into graph_edges (user_id, source_id, target_id, label, weight, note_ids)
        values (${userId}, ${nodeIds.get(userId)!.get(pair[0]!)!}, ${nodeIds.get(userId)!.get(pair[1]!)!}, 'relates to', 1, '[]')`);
    // Frank's three edges far apart around erin's, which lie mostly together with two of frank's among them.
    await insertEdge(frank, "pq");
    for (const pair of ["pq", "pr", "ps", "qr", "qs", "rs"]) await insertEdge(erin, pair);
    for (const [userId, pair] of [[frank, "qr"], [erin, "tp"], [frank, "rs"], [erin, "up"]] as const) await insertEdge(userId, pair);
    for (const userId of [erin, frank]) {
      const graph = await read(userId, { limit: 5000 });
      expect(graph.stats.total_edges).toBe(userId === erin ? 8 : 3);
      expectEdgesExactlyAmong(graph, await allEdges(userId));
    }
  });

  test("rows of one pair (both ways, several labels) are one edge: the verb most notes state, every note cited", async () => {
    const grace = await insertUser(database.db, "grace");
    const ids = await writeGraph(database.db, grace, { nodes: [{ label: "photosynthesis" }, { label: "chlorophyll" }] });
    const [p, c] = [ids.get("photosynthesis")!, ids.get("chlorophyll")!];
    for (const [source, target, label, notes] of [
      [p, c, "related to", "[1,2,3]"],
      [c, p, "depends", "[2,4]"],
      [p, c, "needs", "[5]"],
    ] as const) {
      await database.db.run(sql`insert into graph_edges (user_id, source_id, target_id, label, weight, note_ids)
        values (${grace}, ${source}, ${target}, ${label}, ${JSON.parse(notes).length}, ${notes})`);
    }
    const graph = await read(grace);
    expect(graph.edges).toHaveLength(1);
    expect(graph.edges[0]).toMatchObject({ source: c, target: p, label: "depends", weight: 5, note_ids: [1, 2, 3, 4, 5] });
    expect(graph.stats.total_edges).toBe(1);
  });

  test("an empty graph is empty arrays and zero stats", async () => {
    const carol = await insertUser(database.db, "carol");
    expect(await read(carol)).toEqual({ nodes: [], edges: [], stats: { nodes: 0, edges: 0, total_nodes: 0, total_edges: 0, communities: 0 } });
  });
});

describe("getGraph around a node", () => {
  let dave: number;
  let ids: Map<string, number>;
  const labels = (graph: KnowledgeGraph) => graph.nodes.map((node) => node.label);

  beforeAll(async () => {
    dave = await insertUser(database.db, "dave");
    ids = await chain(dave);
  });

  test("depth 1 is the node and its neighbours, edges followed either way", async () => {
    const graph = await read(dave, { node: ids.get("c") });
    const label = new Map(graph.nodes.map((node) => [node.id, node.label]));
    expect(labels(graph)).toEqual(["c", "d", "b"]);
    expect(graph.edges.map((edge) => `${label.get(edge.source)}>${label.get(edge.target)}`).sort()).toEqual(["c>b", "c>d"]);
  });

  test("depth 2 and 3 reach further along the chain, nearest first", async () => {
    expect(labels(await read(dave, { node: ids.get("a"), depth: 2 }))).toEqual(["a", "b", "c"]);
    expect(labels(await read(dave, { node: ids.get("a"), depth: 3 }))).toEqual(["a", "b", "c", "d"]);
    expect(labels(await read(dave, { node: ids.get("b"), depth: 3 }))).toEqual(["b", "c", "a", "d", "e"]);
  });

  test("the edges are those among the returned nodes, including between two nodes of the last ring", async () => {
    const graph = await read(dave, { node: ids.get("a"), depth: 3 });
    expect(graph.edges).toHaveLength(3);
    expect(graph.stats).toMatchObject({ nodes: 4, edges: 3, total_nodes: 5, total_edges: 4 });
  });

  test("limit keeps the nearest nodes, then the heaviest", async () => {
    // From c: ring 1 is b (2) and d (4); ring 2 is a (1) and e (50).
    expect(labels(await read(dave, { node: ids.get("c"), depth: 2, limit: 2 }))).toEqual(["c", "d"]);
    expect(labels(await read(dave, { node: ids.get("c"), depth: 2, limit: 4 }))).toEqual(["c", "d", "b", "e"]);
    expect(labels(await read(dave, { node: ids.get("c"), depth: 3, limit: 1 }))).toEqual(["c"]);
  });

  test("on a seeded graph, the neighbourhood holds exactly the nodes within depth hops", async () => {
    const everyEdge = await allEdges(alice);
    const root = aliceGraph.nodeIds[300]!;
    const within = new Map([[root, 0]]);
    for (let hop = 1; hop <= 2; hop++) {
      for (const edge of everyEdge) {
        for (const [from, to] of [[edge.source, edge.target], [edge.target, edge.source]] as const) {
          if (within.get(from) === hop - 1 && !within.has(to)) within.set(to, hop);
        }
      }
    }
    const graph = await read(alice, { node: root, depth: 2, limit: 5000 });
    expect(graph.nodes.map((node) => node.id).sort((a, b) => a - b)).toEqual([...within.keys()].sort((a, b) => a - b));
    expect(graph.nodes[0]!.id).toBe(root);
    expectEdgesExactlyAmong(graph, everyEdge);
  });

  test("a capped neighbourhood of a hub is its heaviest neighbours", async () => {
    const hub = aliceGraph.nodeIds[0]!;
    const full = await read(alice, { node: hub, limit: 5000 });
    const capped = await read(alice, { node: hub, depth: 3, limit: 10 });
    expect(full.nodes.length).toBeGreaterThan(10);
    expect(capped.nodes.map((node) => node.id)).toEqual(full.nodes.slice(0, 10).map((node) => node.id));
    expectEdgesExactlyAmong(capped, await allEdges(alice));
  });

  test("an isolated node is a graph of one", async () => {
    const lone = await writeGraph(database.db, dave, { nodes: [{ label: "lone" }] });
    const graph = await read(dave, { node: lone.get("lone"), depth: 3 });
    expect(labels(graph)).toEqual(["lone"]);
    expect(graph.edges).toEqual([]);
  });

  test("a missing node is a NotFoundError", async () => {
    await expect(read(dave, { node: 9_999_999 })).rejects.toBeInstanceOf(NotFoundError);
  });

  test("another user's node is a NotFoundError", async () => {
    await expect(read(dave, { node: aliceGraph.nodeIds[0] })).rejects.toBeInstanceOf(NotFoundError);
    await expect(read(alice, { node: ids.get("c") })).rejects.toBeInstanceOf(NotFoundError);
  });
});
