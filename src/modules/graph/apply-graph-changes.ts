import { and, eq, or, sql } from "drizzle-orm";
import { graphEdges, graphNodeKeys, graphNodes, graphNoteExtractions, graphNoteRemovals } from "../../db/schema";
import { applyNoteDeltas } from "./apply-note-deltas";
import type { Database } from "../../db/client";
import { loadConceptRules, ruleNeighbours } from "./concept-rules";
import { compareGraphs, consumeRemovals, noChanges, type GraphChanges } from "./graph-changes";
import { edgeIdentity } from "./materialize-graph";
import type { GraphWriter } from "./remove-note-from-graph";
import { resolveEntities } from "./resolve-entities";
import { extractionKeys, parseStoredExtraction, type StoredExtraction } from "./stored-extraction";
import { insertEdges, insertNodes, refreshDegrees, type EdgeToWrite } from "./write-graph-rows";

const inJson = (values: readonly (string | number)[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/**
 * Brings the stored graph up to date with the saved extractions that are not applied yet (new,
 * changed or failed notes), the note deletions since the last build, and `extraKeys` (concepts a
 * curation rule just changed), rewriting only the nodes those touch, in one write transaction.
 *
 * Why it is exact: a group's members, labels, mentions and edges depend only on the notes that
 * mention one of its keys (see resolveEntities), and those notes are listed in its `note_ids`. So
 * the touched keys, widened to whole nodes and to keys tied by merge rules, give the notes to read
 * back; resolving just those notes reproduces every touched node as a full build would, and nodes
 * outside stay as they are. When the changes cannot alter which keys form a node (no aliases, merge
 * rules or deletions involved), applyNoteDeltas adds and takes off the notes' shares instead, without
 * reading the other notes of the nodes they touch.
 */
export async function applyGraphChanges(db: Database, userId: number): Promise<GraphChanges> {
  return db.transaction((tx) => applyGraphChangesIn(tx, userId));
}

/** `extraKeys` come from a curation, which leaves the note deletions for the next build to report. */
export async function applyGraphChangesIn(tx: GraphWriter, userId: number, extraKeys: string[] = []): Promise<GraphChanges> {
  const changes = noChanges();
  const pending = await tx
    .select({ noteId: graphNoteExtractions.noteId, status: graphNoteExtractions.status, result: graphNoteExtractions.result, applied: graphNoteExtractions.appliedResult })
    .from(graphNoteExtractions)
    .where(
      and(eq(graphNoteExtractions.userId, userId), eq(graphNoteExtractions.applied, false)),
    );
  const [removal] = await tx.select({ id: graphNoteRemovals.id }).from(graphNoteRemovals).where(eq(graphNoteRemovals.userId, userId)).limit(1);
  if (extraKeys.length === 0 && !removal) {
    const notes = pending.map((row) => ({
      noteId: row.noteId,
      before: row.applied === null ? null : parseStoredExtraction(row.applied),
      after: row.status === "ok" ? parseStoredExtraction(row.result) : null,
    }));
    const quick = notes.length ? await applyNoteDeltas(tx, userId, notes) : changes;
    if (quick) return quick;
  }
  const removals = await consumeRemovals(tx, userId, changes, extraKeys.length === 0);
  const keys = new Set<string>([...extraKeys, ...removals.keys]);
  const fresh = new Map<number, StoredExtraction | null>();
  for (const row of pending) {
    const before = row.applied === null ? null : parseStoredExtraction(row.applied);
    const after = row.status === "ok" ? parseStoredExtraction(row.result) : null;
    for (const key of [...(before ? extractionKeys(before) : []), ...(after ? extractionKeys(after) : [])]) keys.add(key);
    fresh.set(row.noteId, after);
  }
  if (keys.size === 0 && pending.length === 0) return changes;

  const rules = await loadConceptRules(tx, userId);
  // Widen to whole nodes and to merge-rule partners until nothing new comes in (usually one round).
  const nodeIds = new Set<number>();
  for (let frontier = [...keys]; frontier.length > 0; ) {
    const next: string[] = [];
    const reach = (key: string) => {
      if (keys.has(key)) return;
      keys.add(key);
      next.push(key);
    };
    ruleNeighbours(rules, frontier).forEach(reach);
    const owners = await tx
      .selectDistinct({ nodeId: graphNodeKeys.nodeId })
      .from(graphNodeKeys)
      .where(and(eq(graphNodeKeys.userId, userId), sql`${graphNodeKeys.key} in ${inJson(frontier)}`));
    const newIds = owners.map((row) => row.nodeId).filter((id) => !nodeIds.has(id));
    for (const id of newIds) nodeIds.add(id);
    if (newIds.length) {
      const members = await tx.select({ key: graphNodeKeys.key }).from(graphNodeKeys).where(sql`${graphNodeKeys.nodeId} in ${inJson(newIds)}`);
      for (const row of members) reach(row.key);
    }
    frontier = next;
  }

  const oldNodes = nodeIds.size
    ? await tx
        .select({ id: graphNodes.id, key: graphNodes.key, label: graphNodes.label, noteIds: graphNodes.noteIds, community: graphNodes.community })
        .from(graphNodes)
        .where(sql`${graphNodes.id} in ${inJson([...nodeIds])}`)
    : [];
  const noteIds = new Set<number>();
  for (const node of oldNodes) for (const id of JSON.parse(node.noteIds) as number[]) noteIds.add(id);
  for (const [id, extraction] of fresh) if (extraction) noteIds.add(id);
  for (const id of fresh.keys()) if (!fresh.get(id)) noteIds.delete(id);

  const others = [...noteIds].filter((id) => !fresh.has(id));
  const applied = others.length
    ? await tx
        .select({ noteId: graphNoteExtractions.noteId, applied: graphNoteExtractions.appliedResult })
        .from(graphNoteExtractions)
        .where(sql`${graphNoteExtractions.noteId} in ${inJson(others)}`)
    : [];
  const extractions: { noteId: number; extraction: StoredExtraction }[] = [];
  for (const row of applied) {
    const extraction = row.applied === null ? null : parseStoredExtraction(row.applied);
    if (extraction) extractions.push({ noteId: row.noteId, extraction });
  }
  for (const [noteId, extraction] of fresh) if (extraction) extractions.push({ noteId, extraction });
  extractions.sort((a, b) => a.noteId - b.noteId);

  const resolved = resolveEntities(extractions, rules);
  // Groups without a touched key are parts of untouched nodes, seen only through the notes read back.
  const touched = resolved.nodes.map((node) => node.keys.some((key) => keys.has(key)));
  const untouchedKeys = resolved.nodes.filter((_, index) => !touched[index]).map((node) => node.key);
  const untouchedIds = new Map(
    (untouchedKeys.length
      ? await tx
          .select({ key: graphNodeKeys.key, nodeId: graphNodeKeys.nodeId })
          .from(graphNodeKeys)
          .where(and(eq(graphNodeKeys.userId, userId), sql`${graphNodeKeys.key} in ${inJson(untouchedKeys)}`))
      : []
    ).map((row) => [row.key, row.nodeId]),
  );

  const oldEdges = nodeIds.size
    ? await tx
        .select({ sourceId: graphEdges.sourceId, targetId: graphEdges.targetId, label: graphEdges.label })
        .from(graphEdges)
        .where(or(sql`${graphEdges.sourceId} in ${inJson([...nodeIds])}`, sql`${graphEdges.targetId} in ${inJson([...nodeIds])}`))
    : [];
  const oldKeyOf = new Map(oldNodes.map((node) => [node.id, node.key]));
  const endOf = (id: number) => (oldKeyOf.has(id) ? `k:${oldKeyOf.get(id)}` : `n:${id}`);
  const neighbours = new Set<number>();
  for (const edge of oldEdges) for (const id of [edge.sourceId, edge.targetId]) if (!oldKeyOf.has(id)) neighbours.add(id);

  if (nodeIds.size) await tx.delete(graphNodes).where(sql`${graphNodes.id} in ${inJson([...nodeIds])}`);
  const keptIds = new Map(oldNodes.map((node) => [node.key, node]));
  const written = resolved.nodes.flatMap((node, index) =>
    touched[index] ? [{ ...node, id: keptIds.get(node.key)?.id, degree: 0, community: keptIds.get(node.key)?.community ?? 0, index }] : [],
  );
  const ids = await insertNodes(tx, userId, written);
  const idOf = new Map(written.map((node, i) => [node.index, ids[i]!]));

  // Untouched ends may appear as several partial groups of one node: edges are merged by their ends' ids.
  const edges = new Map<string, EdgeToWrite & { identity: string }>();
  for (const edge of resolved.edges) {
    if (!touched[edge.source] && !touched[edge.target]) continue;
    const end = (index: number) => {
      if (touched[index]) return { id: idOf.get(index)!, name: `k:${resolved.nodes[index]!.key}` };
      const id = untouchedIds.get(resolved.nodes[index]!.key)!;
      neighbours.add(id);
      return { id, name: `n:${id}` };
    };
    const [source, target] = [end(edge.source), end(edge.target)];
    const id = `${source.id}|${target.id}|${edge.label}`;
    const entry = edges.get(id) ?? { sourceId: source.id, targetId: target.id, label: edge.label, noteIds: [], identity: edgeIdentity(source.name, target.name, edge.label) };
    entry.noteIds = [...new Set([...entry.noteIds, ...edge.noteIds])].sort((a, b) => a - b);
    edges.set(id, entry);
  }
  await insertEdges(tx, userId, [...edges.values()]);
  await refreshDegrees(tx, [...ids, ...neighbours]);
  if (pending.length) {
    await tx.run(sql`
      update ${graphNoteExtractions} set applied_result = case when status = 'ok' then result end, applied = 1
      where note_id in ${inJson(pending.map((row) => row.noteId))}`);
  }

  const diff = compareGraphs(
    { nodes: oldNodes, edges: new Set(oldEdges.map((edge) => edgeIdentity(endOf(edge.sourceId), endOf(edge.targetId), edge.label))) },
    { nodes: written.map((node, i) => ({ ...node, id: ids[i]! })), edges: new Set([...edges.values()].map((edge) => edge.identity)) },
  );
  changes.nodesAdded += diff.nodesAdded;
  changes.nodesRemoved += diff.nodesRemoved;
  changes.edgesAdded += diff.edgesAdded;
  changes.edgesRemoved += diff.edgesRemoved;
  changes.nodesMerged += diff.nodesMerged;
  changes.diff = {
    added: diff.diff.added,
    removed: [...changes.diff.removed, ...diff.diff.removed],
    merged: diff.diff.merged,
  };
  return changes;
}
