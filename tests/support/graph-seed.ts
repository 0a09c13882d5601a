// Writes knowledge-graph rows straight into the tables, the way a finished build leaves them, so
// read tests and benchmarks need no extractor. `seedGraph` makes a large synthetic graph;
// `insertUser`, `insertNote` and `writeGraph` make small hand-built ones.
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "../../src/db/client";
import { conceptKey } from "../../src/modules/graph/concept-key";
import { computeGraphMetrics } from "../../src/modules/graph/graph-metrics";
import { seededRandom } from "../../src/modules/graph/seeded-random";

export interface SeedGraphOptions {
  nodes: number;
  /** Edges wanted; fewer when the graph is too small to hold that many distinct ones. */
  edges: number;
  /** Notes created for the graph to point at; default one per four nodes. */
  notes?: number;
  /** The most notes one node is mentioned in; default 12. */
  notesPerNode?: number;
  /** Same seed, same graph. Default 1. */
  seed?: number;
}

export interface SeededGraph {
  /** Node ids, heaviest first (weight desc, id asc): the order `getGraph` returns them in. */
  nodeIds: number[];
  noteIds: number[];
  edges: number;
  mentions: number;
  communities: number;
}

const WORDS = (
  "system memory attention habit model evidence theory practice garden river market signal pattern " +
  "question method reading writing network graph concept source chapter author review insight example " +
  "problem solution design latency budget schedule project decision context structure process archive " +
  "library index search language compiler protocol database cache queue kernel neuron protein climate " +
  "economy history music poetry physics energy ocean forest city bridge engine"
).split(" ");
const TYPES = ["concept", "concept", "concept", "technology", "person", "organization", "place", "topic", "idea", "work"];
const RELATIONS = ["relates to", "uses", "part of", "causes", "depends on", "influences", "contrasts with", "example of", "authored", "located in"];
const FILLER = [
  "The argument continues over several pages.",
  "I should come back to this later.",
  "Nothing here is settled yet.",
  "A second reading changed my mind.",
];

export async function insertUser(db: Database, username: string): Promise<number> {
  const row = await db.get<{ id: number }>(
    sql`insert into users (username, username_key, password_hash, created_at) values (${username}, ${username.toLowerCase()}, '-', 0) returning id`,
  );
  return row.id;
}

export async function insertNote(db: Database, userId: number, note: { title: string; content?: string; updatedAt?: number }): Promise<number> {
  const content = note.content ?? "";
  const at = note.updatedAt ?? Date.now();
  const row = await db.get<{ id: number }>(sql`insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
    values (${userId}, ${note.title}, ${content}, ${content.slice(0, 200)}, '[]', ${at}, ${at}) returning id`);
  return row.id;
}

export interface HandNode {
  label: string;
  type?: string;
  description?: string;
  weight?: number;
  noteIds?: number[];
}
export interface HandEdge {
  /** Labels of nodes in the same call. */
  source: string;
  target: string;
  label?: string;
  weight?: number;
  noteIds?: number[];
}
export interface HandMention {
  node: string;
  noteId: number;
  start: number;
  passage: string;
}

/**
 * A small graph exactly as described, degree and community computed as the build does. Returns
 * node ids by label.
 */
export async function writeGraph(
  db: Database,
  userId: number,
  graph: { nodes: HandNode[]; edges?: HandEdge[]; mentions?: HandMention[] },
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const node of graph.nodes) {
    const row = await db.get<{ id: number }>(sql`insert into graph_nodes (user_id, key, label, type, description, weight, degree, community, note_ids)
      values (${userId}, ${conceptKey(node.label)}, ${node.label}, ${node.type ?? "concept"}, ${node.description ?? `About ${node.label}.`},
        ${node.weight ?? 1}, 0, 0, ${JSON.stringify(node.noteIds ?? [])}) returning id`);
    ids.set(node.label, row.id);
  }
  const edgeRows = (graph.edges ?? []).map((edge) => ({ ...edge, sourceId: ids.get(edge.source)!, targetId: ids.get(edge.target)!, weight: edge.weight ?? 1 }));
  for (const edge of edgeRows) {
    await db.run(sql`insert into graph_edges (user_id, source_id, target_id, label, weight, note_ids)
      values (${userId}, ${edge.sourceId}, ${edge.targetId}, ${edge.label ?? "relates to"}, ${edge.weight}, ${JSON.stringify(edge.noteIds ?? [])})`);
  }
  for (const mention of graph.mentions ?? []) {
    await db.run(sql`insert into graph_mentions (node_id, note_id, start, "end", passage)
      values (${ids.get(mention.node)!}, ${mention.noteId}, ${mention.start}, ${mention.start + mention.node.length}, ${mention.passage})`);
  }
  const metrics = computeGraphMetrics([...ids.values()], edgeRows);
  for (const [id, metric] of metrics) {
    await db.run(sql`update graph_nodes set degree = ${metric.degree}, community = ${metric.community} where id = ${id}`);
  }
  return ids;
}

interface DraftNode {
  label: string;
  key: string;
  type: string;
  description: string;
  cluster: number;
  /** Indexes into the drafted notes, ascending. */
  notes: number[];
  weight: number;
}

interface DraftMention {
  node: number;
  note: number;
}

/**
 * Replaces the user's graph with a synthetic one and creates the notes it points at: labels made
 * of words, weights (mentions) with a heavy tail, clusters that most edges stay inside, edges
 * drawn towards heavy nodes, each mention a sentence of its note with the right offsets, and
 * degree/community from `computeGraphMetrics`. One write transaction, rows inserted through
 * `json_each` in chunks: 5,000 nodes and 20,000 edges take a few seconds.
 */
export async function seedGraph(db: Database, userId: number, options: SeedGraphOptions): Promise<SeededGraph> {
  const random = seededRandom(options.seed ?? 1);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const noteCount = Math.max(1, options.notes ?? Math.ceil(options.nodes / 4));
  const notesPerNode = Math.max(1, options.notesPerNode ?? 12);
  const clusters = Math.max(1, Math.round(options.nodes / 100));

  // Nodes: Pareto(1.2) mention counts, spread over notes that mostly belong to the node's cluster.
  const keys = new Set<string>();
  const nodes: DraftNode[] = [];
  const mentions: DraftMention[] = [];
  for (let index = 0; index < options.nodes; index++) {
    let label = `${capitalise(pick(WORDS))} ${pick(WORDS)}`;
    if (keys.has(conceptKey(label))) label = `${label} ${index}`;
    const key = conceptKey(label);
    keys.add(key);
    const cluster = index % clusters;
    const weight = Math.min(1000, Math.floor(Math.pow(1 - random(), -1 / 1.2)));
    const distinct = Math.min(weight, notesPerNode, noteCount);
    const chosen = new Set<number>();
    while (chosen.size < distinct) {
      const inCluster = random() < 0.7;
      chosen.add(inCluster ? clusterNote(cluster, clusters, noteCount, random) : Math.floor(random() * noteCount));
    }
    const noteList = [...chosen].sort((a, b) => a - b);
    for (let mention = 0; mention < weight; mention++) mentions.push({ node: index, note: mention < noteList.length ? noteList[mention]! : pick(noteList) });
    const type = pick(TYPES);
    nodes.push({ label, key, type, description: `A ${type} about ${pick(WORDS)} and ${pick(WORDS)}.`, cluster, notes: noteList, weight });
  }

  // Edges: source drawn in proportion to weight, target mostly from the same cluster.
  const cumulative = new Float64Array(nodes.length);
  let total = 0;
  nodes.forEach((node, index) => (cumulative[index] = total += node.weight));
  const byWeight = () => lowerBound(cumulative, random() * total);
  const members: number[][] = Array.from({ length: clusters }, () => []);
  nodes.forEach((node, index) => members[node.cluster]!.push(index));
  const edgeKeys = new Set<string>();
  const edges: { source: number; target: number; label: string; weight: number; notes: number[] }[] = [];
  for (let attempt = 0; edges.length < options.edges && attempt < options.edges * 20 && nodes.length > 1; attempt++) {
    const source = byWeight();
    const target = random() < 0.8 ? pick(members[nodes[source]!.cluster]!) : byWeight();
    const label = pick(RELATIONS);
    const key = `${source},${target},${label}`;
    if (source === target || edgeKeys.has(key)) continue;
    edgeKeys.add(key);
    const weight = Math.min(50, Math.floor(Math.pow(1 - random(), -1 / 1.5)));
    const candidates = [...new Set([...nodes[source]!.notes, ...nodes[target]!.notes])];
    const noteSet = new Set<number>();
    for (let draw = 0; draw < weight; draw++) noteSet.add(pick(candidates));
    edges.push({ source, target, label, weight, notes: [...noteSet].sort((a, b) => a - b) });
  }
  const metrics = computeGraphMetrics(
    nodes.map((_, index) => index + 1),
    edges.map((edge) => ({ sourceId: edge.source + 1, targetId: edge.target + 1, weight: edge.weight })),
  );

  // Note bodies: one sentence per mention, filler between, offsets recorded as they fall.
  const noteMentions: DraftMention[][] = Array.from({ length: noteCount }, () => []);
  for (const mention of mentions) noteMentions[mention.note]!.push(mention);
  const mentionRows: [number, number, number, number, string][] = []; // node, note, start, end, passage
  const noteRows = noteMentions.map((list, note) => {
    let content = "";
    for (const mention of list) {
      if (random() < 0.3) content += `${pick(FILLER)} `;
      const label = nodes[mention.node]!.label;
      const passage = `${random() < 0.5 ? "On" : "About"} ${label}: the ${pick(WORDS)} of ${pick(WORDS)} matters for ${pick(WORDS)} ${pick(WORDS)}.`;
      const start = content.length + passage.indexOf(label);
      mentionRows.push([mention.node, note, start, start + label.length, passage]);
      content += `${passage} `;
    }
    const first = list[0] ? nodes[list[0].node]!.label : capitalise(pick(WORDS));
    return { title: `Notes on ${first} (${note + 1})`, content: content.trim() };
  });

  const now = Date.now();
  const yearMs = 365 * 24 * 60 * 60 * 1000;
  return db.transaction(async (tx) => {
    await tx.run(sql`delete from graph_nodes where user_id = ${userId}`);
    const lastNote = (await tx.get<{ id: number }>(sql`select coalesce(max(id), 0) as id from notes`)).id;
    await insertChunks(
      tx,
      (rows) => sql`insert into notes (user_id, title, content, excerpt, tags, created_at, updated_at)
        select ${userId}, value ->> 0, value ->> 1, value ->> 2, '[]', value ->> 3, value ->> 3 from json_each(${rows})`,
      noteRows.map((note, index) => [note.title, note.content, note.content.slice(0, 200), now - yearMs + Math.floor((index / noteCount) * yearMs)]),
    );
    const noteIds = (await tx.all<{ id: number }>(sql`select id from notes where user_id = ${userId} and id > ${lastNote} order by id`)).map((row) => row.id);
    const noteIdOf = (note: number) => noteIds[note]!;

    await insertChunks(
      tx,
      (rows) => sql`insert into graph_nodes (user_id, key, label, type, description, weight, degree, community, note_ids, aliases)
        select ${userId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, '[]' from json_each(${rows})`,
      nodes.map((node, index) => {
        const metric = metrics.get(index + 1)!;
        return [node.key, node.label, node.type, node.description, node.weight, metric.degree, metric.community, JSON.stringify(node.notes.map(noteIdOf))];
      }),
    );
    const idByKey = new Map(
      (await tx.all<{ key: string; id: number }>(sql`select key, id from graph_nodes where user_id = ${userId}`)).map((row) => [row.key, row.id]),
    );
    const nodeIdOf = (node: number) => idByKey.get(nodes[node]!.key)!;

    await insertChunks(
      tx,
      (rows) => sql`insert into graph_edges (user_id, source_id, target_id, label, weight, note_ids)
        select ${userId}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${rows})`,
      edges.map((edge) => [nodeIdOf(edge.source), nodeIdOf(edge.target), edge.label, edge.weight, JSON.stringify(edge.notes.map(noteIdOf))]),
    );
    await insertChunks(
      tx,
      (rows) => sql`insert into graph_mentions (node_id, note_id, start, "end", passage)
        select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${rows})`,
      mentionRows.map(([node, note, start, end, passage]) => [nodeIdOf(node), noteIdOf(note), start, end, passage]),
    );

    const order = nodes.map((node, index) => ({ id: nodeIdOf(index), weight: node.weight })).sort((a, b) => b.weight - a.weight || a.id - b.id);
    return {
      nodeIds: order.map((node) => node.id),
      noteIds,
      edges: edges.length,
      mentions: mentionRows.length,
      communities: new Set([...metrics.values()].map((metric) => metric.community)).size,
    };
  });
}

const CHUNK = 2000;

type Runner = Pick<Database, "run">;

/** One statement per chunk: SQLite unpacks a JSON array of rows, which saves a prepare per row. */
async function insertChunks(tx: Runner, statement: (rows: string) => SQL, rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) await tx.run(statement(JSON.stringify(rows.slice(start, start + CHUNK))));
}

/** Notes are dealt to clusters round-robin; a cluster's nodes mostly share its notes. */
function clusterNote(cluster: number, clusters: number, noteCount: number, random: () => number): number {
  const perCluster = Math.ceil(noteCount / clusters);
  const note = cluster + clusters * Math.floor(random() * perCluster);
  return note < noteCount ? note : Math.floor(random() * noteCount);
}

function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function capitalise(word: string): string {
  return word[0]!.toUpperCase() + word.slice(1);
}
