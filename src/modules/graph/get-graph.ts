import { and, asc, between, desc, eq, inArray, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { graphEdges, graphNodeKeys, graphNodes } from "../../db/schema";
import { searchFold } from "./concept-key";
import type { Database } from "../../db/client";
import { NotFoundError } from "../errors";
import type { GetGraphInput, GraphEdge, GraphNode, KnowledgeGraph } from "./read-schemas";

type Ctx = { db: Database; userId: number; hidden?: boolean };

/** Hidden nodes are left out unless the read asks for them. */
function visible(ctx: Ctx) {
  return ctx.hidden ? undefined : eq(graphNodes.hidden, false);
}

/**
 * Nodes whose label or one of whose names contains `q`, heaviest first. Names are matched through
 * their concept keys (NFKC, case-folded), which graph_node_keys holds for every label and alias.
 */
function matchingIds(ctx: Ctx, q: string, limit: number) {
  const folded = searchFold(q);
  const byKey = sql`(select ${graphNodeKeys.nodeId} from ${graphNodeKeys} where ${graphNodeKeys.userId} = ${ctx.userId} and instr(${graphNodeKeys.key}, ${folded}) > 0)`;
  return ctx.db
    .select({ id: graphNodes.id })
    .from(graphNodes)
    .where(and(eq(graphNodes.userId, ctx.userId), visible(ctx), sql`(${graphNodes.id} in ${byKey} or instr(lower(${graphNodes.label}), ${folded}) > 0)`))
    .orderBy(desc(graphNodes.weight), asc(graphNodes.id))
    .limit(limit);
}

/**
 * The renderer's view of the user's graph. Without `node`: the `limit` heaviest nodes (weight
 * desc, id asc) and the edges among them. With `node`: the nodes within `depth` hops of it (edges
 * followed either way), nearest first, then heaviest, at most `limit`, and the edges among them.
 *
 * Edges come unsorted.
 */
export async function getGraph({ ctx: base, input }: { ctx: Omit<Ctx, "hidden">; input: GetGraphInput }): Promise<KnowledgeGraph> {
  const ctx: Ctx = { ...base, hidden: input.include_hidden };
  const first =
    input.node !== undefined
      ? and(eq(graphNodes.id, input.node), visible(ctx))
      : inArray(graphNodes.id, input.q === undefined ? heaviestIds(ctx, input.limit) : matchingIds(ctx, input.q, input.limit));
  // Totals with the heaviest nodes (or the root) in one read transaction; a neighbourhood then takes a query per hop.
  const [[totals], firstRows] = await ctx.db.batch([totalsQuery(ctx), nodesQuery(ctx, first)]);
  const total = { nodes: totals?.nodes ?? 0, edges: totals?.edges ?? 0 };
  const edgeIds = { count: totals?.userEdges ?? 0, first: totals?.firstEdgeId ?? 0, last: totals?.lastEdgeId ?? 0 };
  let nodes = parseNodes(firstRows);
  if (input.node === undefined) nodes.sort(heaviestFirst);
  else if (nodes.length === 0) throw new NotFoundError(`Graph node ${input.node}`);
  else nodes = await neighbourhood(ctx, input.node, input.depth, input.limit);
  const edges = await edgesAmong(ctx, nodes, total.nodes, edgeIds);
  return {
    nodes,
    edges,
    stats: {
      nodes: nodes.length,
      edges: edges.length,
      total_nodes: total.nodes,
      total_edges: total.edges,
      communities: new Set(nodes.map((node) => node.community)).size,
    },
  };
}

/**
 * The user's nodes and edges, less the hidden nodes and the edges touching them unless the read
 * includes those, and where the user's edges lie among the table's rowids (see `allUserEdges`).
 * The plain counts come from covering indexes; the hidden nodes, which only their rows tell, are
 * read once into a JSON list (a subquery for each use read them three times, more than all the
 * rest) and their edges found through the source and target indexes (testing every edge against
 * the hidden set cost ten times the plain count).
 */
function totalsQuery(ctx: Ctx) {
  const nodes = sql<number>`(select count(*) from ${graphNodes} where ${graphNodes.userId} = ${ctx.userId})`;
  const edgeIds = {
    userEdges: sql<number>`user_edges.count`,
    firstEdgeId: sql<number | null>`user_edges.first`,
    lastEdgeId: sql<number | null>`user_edges.last`,
  };
  // Edges are counted as a reader sees them: one per pair of nodes (see `onePerPair`).
  const pair = sql`min(${graphEdges.sourceId}, ${graphEdges.targetId}) * 4294967296 + max(${graphEdges.sourceId}, ${graphEdges.targetId})`;
  const userEdges = sql`(select count(*) as count, count(distinct ${pair}) as pairs, min(${graphEdges.id}) as first, max(${graphEdges.id}) as last
    from ${graphEdges} where ${graphEdges.userId} = ${ctx.userId}) as user_edges`;
  if (ctx.hidden) return ctx.db.select({ nodes, edges: sql<number>`user_edges.pairs`, ...edgeIds }).from(userEdges);
  const hiddenIds = sql`(select value from json_each(hidden.ids))`;
  return ctx.db
    .select({
      nodes: sql<number>`${nodes} - json_array_length(hidden.ids)`,
      edges: sql<number>`user_edges.pairs
        - (select count(*) from (select ${pair} from ${graphEdges} where ${graphEdges.sourceId} in ${hiddenIds}
            union select ${pair} from ${graphEdges} where ${graphEdges.targetId} in ${hiddenIds}))`,
      ...edgeIds,
    })
    .from(sql`${userEdges}, (select json_group_array(${graphNodes.id}) as ids from ${graphNodes}
      where ${graphNodes.userId} = ${ctx.userId} and ${graphNodes.hidden}) as hidden`);
}

/** graph_nodes_user_weight_idx hands these over in order, hidden ones skipped, without touching the rows. */
function heaviestIds(ctx: Ctx, limit: number) {
  return ctx.db
    .select({ id: graphNodes.id })
    .from(graphNodes)
    .where(and(eq(graphNodes.userId, ctx.userId), visible(ctx)))
    .orderBy(desc(graphNodes.weight), asc(graphNodes.id))
    .limit(limit);
}

/**
 * Breadth-first from a node known to be the user's, one query per hop, until `depth` or until the
 * rings reached hold `limit` nodes; from a ring that overflows, only its heaviest are read.
 */
async function neighbourhood(ctx: Ctx, rootId: number, depth: number, limit: number): Promise<GraphNode[]> {
  const hidden = new Set(
    ctx.hidden
      ? []
      : (await ctx.db.select({ id: graphNodes.id }).from(graphNodes).where(and(eq(graphNodes.userId, ctx.userId), eq(graphNodes.hidden, true)))).map((row) => row.id),
  );
  const seen = new Set([rootId]);
  const rings = [[rootId]];
  while (rings.length <= depth && seen.size < limit) {
    const ring = (await neighbourIds(ctx, rings.at(-1)!)).filter((id) => !seen.has(id) && !hidden.has(id));
    if (ring.length === 0) break;
    for (const id of ring) seen.add(id);
    rings.push(ring);
  }

  const overflows = seen.size > limit;
  const inner = overflows ? rings.slice(0, -1).flat() : [...seen];
  const results = overflows
    ? await ctx.db.batch([nodesQuery(ctx, idIn(inner)), nodesQuery(ctx, inArray(graphNodes.id, heaviestAmong(ctx, rings.at(-1)!, limit - inner.length)))])
    : [await nodesQuery(ctx, idIn(inner))];
  const distance = new Map(rings.flatMap((ring, hop) => ring.map((id) => [id, hop] as const)));
  return results.flatMap((rows) => parseNodes(rows)).sort((a, b) => distance.get(a.id)! - distance.get(b.id)! || heaviestFirst(a, b));
}

function heaviestAmong(ctx: Ctx, ids: number[], limit: number) {
  return ctx.db
    .select({ id: graphNodes.id })
    .from(graphNodes)
    .where(and(sql`+${graphNodes.userId} = ${ctx.userId}`, idIn(ids)))
    .orderBy(desc(graphNodes.weight), asc(graphNodes.id))
    .limit(limit);
}

/** `id in (...)` with the set as one JSON parameter, however many ids. */
function idIn(ids: number[]) {
  return sql`${graphNodes.id} in (select value from json_each(${JSON.stringify(ids)}))`;
}

/**
 * The distinct ids one edge away from any of `ids`, either direction. A unary `+` (here and below)
 * keeps SQLite off the user's whole index range when a sharper index (target, primary key) exists.
 */
async function neighbourIds(ctx: Ctx, ids: number[]): Promise<number[]> {
  const set = JSON.stringify(ids);
  const [row] = await ctx.db.all<{ ids: string }>(sql`
    select json_group_array(id) as ids from (
      select ${graphEdges.targetId} as id from ${graphEdges}
        where ${graphEdges.userId} = ${ctx.userId} and ${graphEdges.sourceId} in (select value from json_each(${set}))
      union
      select ${graphEdges.sourceId} from ${graphEdges}
        where +${graphEdges.userId} = ${ctx.userId} and ${graphEdges.targetId} in (select value from json_each(${set}))
    )`);
  return JSON.parse(row?.ids ?? "[]") as number[];
}

/**
 * Edges whose two ends are both among `nodes`. A small share of the graph is joined in SQL (one
 * index probe per node); a large one reads all the user's edges and filters here, which beats
 * per-node probes once the set passes about half the graph.
 */
async function edgesAmong(ctx: Ctx, nodes: readonly GraphNode[], totalNodes: number, edgeIds: EdgeIds): Promise<GraphEdge[]> {
  if (nodes.length === 0) return [];
  const ids = new Set(nodes.map((node) => node.id));
  const edges = await selectEdges(
    ctx,
    nodes.length * 2 > totalNodes ? allUserEdges(ctx, edgeIds) : and(eq(graphEdges.userId, ctx.userId), bothEndsIn([...ids])),
  );
  // Also drops edges to nodes that a concurrent build added after the nodes were read.
  return edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target));
}

/** How many edges the user has, and the lowest and highest of their ids. */
interface EdgeIds {
  count: number;
  first: number;
  last: number;
}

/** Other users' rows a range may hold per row of the user's before the index is cheaper. */
const RANGE_SPREAD = 3;

/**
 * All the user's edges. A build writes a user's edges together, so they mostly lie in one narrow
 * range of rowids: reading that range in order and skipping other users' rows cost a third of what
 * the user index did (an index entry, then a probe into the table, per edge; ~5 ms of ~7 at 20,000
 * edges). When other users' rows fill most of the range, the index.
 */
function allUserEdges(ctx: Ctx, edgeIds: EdgeIds) {
  if (edgeIds.last - edgeIds.first + 1 > RANGE_SPREAD * edgeIds.count) return eq(graphEdges.userId, ctx.userId);
  return and(between(graphEdges.id, edgeIds.first, edgeIds.last), sql`+${graphEdges.userId} = ${ctx.userId}`);
}

/** Probes the source index once per id; the unary + keeps SQLite from probing every (source, target) pair. */
function bothEndsIn(ids: number[]) {
  const set = JSON.stringify(ids);
  return sql`${graphEdges.sourceId} in (select value from json_each(${set})) and +${graphEdges.targetId} in (select value from json_each(${set}))`;
}

type Condition = ReturnType<typeof and>;

/** Edges in the API's shape; unordered. `where` must scope them to the user. */
async function selectEdges(ctx: Ctx, where: Condition): Promise<GraphEdge[]> {
  return parseEdges(await edgesQuery(ctx, where));
}

/**
 * The user's nodes matching `where`, which should pick them by id (the user check is then a
 * filter, not an index scan); for `db.batch`; read it with `parseNodes`.
 */
export function nodesQuery(ctx: Ctx, where: Condition) {
  return ctx.db
    .select({
      id: columnArray(graphNodes.id),
      label: columnArray(graphNodes.label),
      type: columnArray(graphNodes.type),
      description: columnArray(graphNodes.description),
      weight: columnArray(graphNodes.weight),
      degree: columnArray(graphNodes.degree),
      community: columnArray(graphNodes.community),
      noteIds: jsonColumnArray(graphNodes.noteIds),
      aliases: jsonColumnArray(graphNodes.aliases),
    })
    .from(graphNodes)
    .where(and(sql`+${graphNodes.userId} = ${ctx.userId}`, where));
}

/** Edges matching `where` (which must scope them to the user); read it with `parseEdges`. */
export function edgesQuery(ctx: Ctx, where: Condition) {
  return ctx.db
    .select({
      id: columnArray(graphEdges.id),
      source: columnArray(graphEdges.sourceId),
      target: columnArray(graphEdges.targetId),
      label: columnArray(graphEdges.label),
      weight: columnArray(graphEdges.weight),
      noteIds: jsonColumnArray(graphEdges.noteIds),
    })
    .from(graphEdges)
    .where(where);
}

/**
 * Rows leave SQLite as one JSON array per column: at 5,000 nodes and 20,000 edges that is about
 * twice as fast as a libSQL row object per row, and cheaper to build and parse than an array per
 * row (whose JSON-text columns would be strings to parse once per row). The arrays line up: the
 * aggregates of one query see its rows in one order.
 */
function columnArray(column: AnySQLiteColumn) {
  return sql<string>`json_group_array(${column})`;
}

/** A column that holds JSON arrays, joined as written into one array of them (null for no rows). */
function jsonColumnArray(column: AnySQLiteColumn) {
  return sql<string | null>`'[' || group_concat(${column}) || ']'`;
}

type Columns<T> = { [K in keyof T]: string | null };

function parseColumns<T>(row: Columns<T> | undefined): { [K in keyof T]: T[K][] } {
  const columns: Record<string, unknown[]> = {};
  for (const key in row) columns[key] = JSON.parse(row[key] ?? "[]") as unknown[];
  return columns as { [K in keyof T]: T[K][] };
}

export function parseNodes([row]: Columns<Omit<GraphNode, "note_ids"> & { noteIds: number[] }>[]): GraphNode[] {
  const { id, label, type, description, weight, degree, community, noteIds, aliases } = parseColumns(row);
  const nodes = new Array<GraphNode>(id.length);
  for (let i = 0; i < nodes.length; i++) {
    nodes[i] = {
      id: id[i]!,
      label: label[i]!,
      type: type[i]!,
      description: description[i]!,
      weight: weight[i]!,
      degree: degree[i]!,
      community: community[i]!,
      note_ids: noteIds[i]!,
      aliases: aliases[i]!,
    };
  }
  return nodes;
}

export function parseEdges([row]: Columns<Omit<GraphEdge, "note_ids"> & { noteIds: number[] }>[]): GraphEdge[] {
  const { id, source, target, label, weight, noteIds } = parseColumns(row);
  const edges = new Array<GraphEdge>(id.length);
  for (let i = 0; i < edges.length; i++) {
    edges[i] = { id: id[i]!, source: source[i]!, target: target[i]!, label: label[i]!, weight: weight[i]!, note_ids: noteIds[i]! };
  }
  return onePerPair(edges);
}

const RELATED = "related to";
const MENTIONS = "mentions";

/**
 * A reader sees one edge per pair of concepts, whichever way and however labelled its notes state it:
 * stored rows (one per direction and label, so a note's share stays exact to add and take off) are
 * joined here. The edge is labelled with the verb most notes use (a structural "mentions" next,
 * "related to" last; a tie goes to the smallest label), keeps that row's id and direction, and cites
 * every note of every row; its weight is their number.
 */
export function onePerPair(edges: GraphEdge[]): GraphEdge[] {
  const pairs = new Map<string, GraphEdge[]>();
  let repeated = false;
  for (const edge of edges) {
    const pairKey = edge.source < edge.target ? `${edge.source}|${edge.target}` : `${edge.target}|${edge.source}`;
    const list = pairs.get(pairKey);
    if (list) {
      list.push(edge);
      repeated = true;
    } else pairs.set(pairKey, [edge]);
  }
  if (!repeated) return edges;
  const rank = (label: string) => (label === RELATED ? 2 : label === MENTIONS ? 1 : 0);
  const joined: GraphEdge[] = [];
  for (const list of pairs.values()) {
    if (list.length === 1) {
      joined.push(list[0]!);
      continue;
    }
    const best = list.reduce((a, b) =>
      rank(b.label) < rank(a.label) ||
      (rank(b.label) === rank(a.label) && (b.weight > a.weight || (b.weight === a.weight && (b.label < a.label || (b.label === a.label && b.id < a.id)))))
        ? b
        : a,
    );
    const noteIds = [...new Set(list.flatMap((edge) => edge.note_ids))].sort((a, b) => a - b);
    joined.push({ ...best, weight: noteIds.length, note_ids: noteIds });
  }
  return joined;
}

export function heaviestFirst(a: { id: number; weight: number }, b: { id: number; weight: number }): number {
  return b.weight - a.weight || a.id - b.id;
}
