import { and, eq, sql } from "drizzle-orm";
import { graphEdges, graphMentions, graphNodeKeys, graphNodes, graphNoteExtractions } from "../../db/schema";
import { conceptKey } from "./concept-key";
import { loadConceptRules, ruleNeighbours } from "./concept-rules";
import { noChanges, type GraphChanges } from "./graph-changes";
import { countConcept, describeNode, emptyStats, parseStats, serializeStats, type NodeStats } from "./node-stats";
import type { GraphWriter } from "./remove-note-from-graph";
import type { StoredExtraction } from "./stored-extraction";
import { insertEdges, insertNodes, refreshDegrees } from "./write-graph-rows";

const inJson = (values: readonly (string | number)[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

export interface PendingNote {
  noteId: number;
  before: StoredExtraction | null;
  after: StoredExtraction | null;
}

interface Group {
  id: number | undefined;
  key: string;
  keys: string[];
  stats: NodeStats;
  /** The stats as stored: a node its notes' edits leave as it was is not rewritten. */
  storedStats: string | null;
  /**
   * Ascending, edited in place (a concept in 10,000 notes is not re-sorted for one note); read from
   * `stored` only when a note joins or leaves the node (an edited note usually does neither).
   */
  noteIds: number[] | undefined;
  /** The list as stored. */
  stored: string | null;
  /** The pending notes that named it before, and after. */
  before: Set<number>;
  after: Set<number>;
}

/** Inserts or removes `id` in an ascending list. */
function edit(list: number[], id: number, present: boolean): void {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]! < id) low = middle + 1;
    else high = middle;
  }
  const found = list[low] === id;
  if (present && !found) list.splice(low, 0, id);
  else if (!present && found) list.splice(low, 1);
}

/**
 * The fast way to apply changed notes: take each note's old share off the nodes and edges it
 * touched and add its new share, reading and writing only those rows (a node's label, aliases,
 * type and description come from its stored NodeStats, its weight from its mention rows). Returns
 * null, having changed nothing, when the notes could change which concept keys form one node (an
 * alias tying two keys, a merge rule on a key, a node without stats): then the caller recomputes the
 * touched nodes from their notes instead.
 */
export async function applyNoteDeltas(tx: GraphWriter, userId: number, pending: PendingNote[]): Promise<GraphChanges | null> {
  const keys = new Set<string>();
  for (const { before, after } of pending) {
    for (const extraction of [before, after]) {
      for (const concept of extraction?.concepts ?? []) {
        const key = conceptKey(concept.name);
        if (!key) continue;
        if (concept.aliases.some((alias) => conceptKey(alias) !== "" && conceptKey(alias) !== key)) return null;
        keys.add(key);
      }
    }
  }
  const rules = await loadConceptRules(tx, userId);
  if (ruleNeighbours(rules, keys).length > 0) return null;

  const owners = keys.size
    ? await tx
        .select({ key: graphNodeKeys.key, nodeId: graphNodeKeys.nodeId })
        .from(graphNodeKeys)
        .where(and(eq(graphNodeKeys.userId, userId), sql`${graphNodeKeys.key} in ${inJson([...keys])}`))
    : [];
  const ownerOf = new Map(owners.map((row) => [row.key, row.nodeId]));
  // Every concept a note had in the graph has a node; if not, the graph is not what these notes built.
  for (const { before } of pending) for (const concept of before?.concepts ?? []) if (conceptKey(concept.name) && !ownerOf.has(conceptKey(concept.name))) return null;
  const nodeIds = [...new Set(ownerOf.values())];
  const rows = nodeIds.length
    ? await tx
        .select({ id: graphNodes.id, key: graphNodes.key, noteIds: graphNodes.noteIds, stats: graphNodes.stats })
        .from(graphNodes)
        .where(sql`${graphNodes.id} in ${inJson(nodeIds)}`)
    : [];
  if (rows.some((row) => row.stats === null)) return null;
  const members = new Map<number, string[]>();
  if (rules.size > 0 && nodeIds.length) {
    for (const row of await tx.select({ key: graphNodeKeys.key, nodeId: graphNodeKeys.nodeId }).from(graphNodeKeys).where(sql`${graphNodeKeys.nodeId} in ${inJson(nodeIds)}`)) {
      members.set(row.nodeId, [...(members.get(row.nodeId) ?? []), row.key]);
    }
  }
  const existing = new Map<number, Group>(
    rows.map((row) => [
      row.id,
      { id: row.id, key: row.key, keys: members.get(row.id) ?? [row.key], stats: parseStats(row.stats!), storedStats: row.stats, noteIds: undefined, stored: row.noteIds, before: new Set(), after: new Set() },
    ]),
  );
  const fresh = new Map<string, Group>();
  const groupOf = (key: string): Group => {
    const owner = ownerOf.get(key);
    if (owner !== undefined) return existing.get(owner)!;
    let group = fresh.get(key);
    if (!group) fresh.set(key, (group = { id: undefined, key, keys: [key], stats: emptyStats(), storedStats: null, noteIds: undefined, stored: null, before: new Set(), after: new Set() }));
    return group;
  };

  // Edge shares by (source group, target group, label): the notes that stop and start stating them.
  const edgeShares = new Map<string, { source: Group; target: Group; label: string; removed: Set<number>; added: Set<number> }>();
  const share = (noteId: number, extraction: StoredExtraction | null, sign: 1 | -1) => {
    if (!extraction) return;
    const own = new Set<string>();
    for (const concept of extraction.concepts) {
      const key = conceptKey(concept.name);
      if (!key) continue;
      const group = groupOf(key);
      countConcept(group.stats, concept, sign);
      (sign === 1 ? group.after : group.before).add(noteId);
      own.add(key);
      for (const alias of concept.aliases) own.add(conceptKey(alias));
    }
    for (const relation of extraction.relations) {
      const [sourceKey, targetKey] = [conceptKey(relation.source), conceptKey(relation.target)];
      if (!sourceKey || !targetKey || !own.has(sourceKey) || !own.has(targetKey)) continue;
      const [source, target] = [groupOf(sourceKey), groupOf(targetKey)];
      if (source === target) continue;
      const label = relation.label.trim().toLowerCase() || "related to";
      const id = `${source.key}\u0000${target.key}\u0000${label}`;
      const entry = edgeShares.get(id) ?? { source, target, label, removed: new Set(), added: new Set() };
      (sign === 1 ? entry.added : entry.removed).add(noteId);
      edgeShares.set(id, entry);
    }
  };
  for (const note of pending) share(note.noteId, note.before, -1);
  for (const note of pending) share(note.noteId, note.after, 1);
  // Membership changes only where a note joins or leaves a node; only those lists are read and edited.
  for (const group of [...existing.values(), ...fresh.values()]) {
    const leaving = [...group.before].filter((id) => !group.after.has(id));
    const joining = [...group.after].filter((id) => !group.before.has(id));
    if (leaving.length + joining.length === 0) continue;
    const list: number[] = group.stored === null ? [] : JSON.parse(group.stored);
    for (const id of leaving) edit(list, id, false);
    for (const id of joining) edit(list, id, true);
    group.noteIds = list;
  }

  const changes = noChanges();
  // New concepts become nodes (with their keys); their mentions come with everyone's below.
  const born = [...fresh.values()].filter((group) => (group.noteIds?.length ?? 0) > 0);
  const bornIds = await insertNodes(
    tx,
    userId,
    born.map((group) => ({
      ...describeNode(group.stats, group.key, group.keys, rules),
      key: group.key,
      keys: group.keys,
      stats: group.stats,
      mentions: [],
      noteIds: group.noteIds!,
      id: undefined,
      degree: 0,
      community: 0,
    })),
  );
  born.forEach((group, index) => {
    group.id = bornIds[index]!;
    changes.nodesAdded++;
    changes.diff.added.push({ id: group.id, label: describeNode(group.stats, group.key, group.keys, rules).label });
  });

  const noteIds = pending.map((note) => note.noteId);
  // A node's weight is its count of mention rows: counted through the notes' index, before and after.
  const mentionCounts = () =>
    tx
      .select({ nodeId: graphMentions.nodeId, total: sql<number>`count(*)` })
      .from(graphMentions)
      .where(sql`${graphMentions.noteId} in ${inJson(noteIds)}`)
      .groupBy(graphMentions.nodeId);
  const weightChange = new Map<number, number>();
  for (const row of await mentionCounts()) weightChange.set(row.nodeId, -Number(row.total));
  await tx.delete(graphMentions).where(sql`${graphMentions.noteId} in ${inJson(noteIds)}`);
  const mentionRows: [number, number, number, number, string][] = [];
  for (const { noteId, after } of pending) {
    for (const concept of after?.concepts ?? []) {
      const key = conceptKey(concept.name);
      if (!key) continue;
      const id = groupOf(key).id!;
      for (const mention of concept.mentions) mentionRows.push([id, noteId, mention.start, mention.end, mention.passage]);
    }
  }
  if (mentionRows.length) {
    // In concept order, first one per place kept: as resolveEntities picks them.
    await tx.run(sql`
      insert or ignore into ${graphMentions} (node_id, note_id, start, end, passage)
      select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 from json_each(${JSON.stringify(mentionRows)})`);
  }

  for (const row of await mentionCounts()) weightChange.set(row.nodeId, (weightChange.get(row.nodeId) ?? 0) + Number(row.total));

  // Edges: each share nets out to notes added and taken off.
  const degreeIds = new Set<number>();
  // A note that states an edge before and after its edit leaves the edge as it was: not even read.
  for (const entry of edgeShares.values()) {
    for (const id of entry.added) {
      if (!entry.removed.has(id)) continue;
      entry.removed.delete(id);
      entry.added.delete(id);
    }
  }
  const wanted = [...edgeShares.values()].filter(
    (entry) => entry.source.id !== undefined && entry.target.id !== undefined && entry.removed.size + entry.added.size > 0,
  );
  const current = new Map(
    (wanted.length
      ? await tx.all<{ id: number; source_id: number; target_id: number; label: string; note_ids: string }>(sql`
          select e.id, e.source_id, e.target_id, e.label, e.note_ids from json_each(${JSON.stringify(wanted.map((entry) => [entry.source.id, entry.target.id, entry.label]))}) j cross
          join ${graphEdges} e on e.user_id = ${userId} and e.source_id = j.value ->> 0 and e.target_id = j.value ->> 1 and e.label = j.value ->> 2`)
      : []
    ).map((row) => [`${row.source_id}|${row.target_id}|${row.label}`, row]),
  );
  const inserts: { sourceId: number; targetId: number; label: string; noteIds: number[] }[] = [];
  for (const entry of wanted) {
    const row = current.get(`${entry.source.id}|${entry.target.id}|${entry.label}`);
    const sorted: number[] = row ? JSON.parse(row.note_ids) : [];
    for (const id of entry.removed) edit(sorted, id, false);
    for (const id of entry.added) edit(sorted, id, true);
    if (row && sorted.length === 0) {
      await tx.delete(graphEdges).where(eq(graphEdges.id, row.id));
      changes.edgesRemoved++;
      degreeIds.add(row.source_id).add(row.target_id);
    } else if (row) {
      await tx.update(graphEdges).set({ weight: sorted.length, noteIds: JSON.stringify(sorted) }).where(eq(graphEdges.id, row.id));
    } else if (sorted.length > 0) {
      inserts.push({ sourceId: entry.source.id!, targetId: entry.target.id!, label: entry.label, noteIds: sorted });
      changes.edgesAdded++;
      degreeIds.add(entry.source.id!).add(entry.target.id!);
    }
  }
  await insertEdges(tx, userId, inserts);

  // Existing nodes: recomputed from their stats, or gone with their last note.
  const gone: number[] = [];
  for (const group of existing.values()) {
    if (group.noteIds?.length === 0) {
      gone.push(group.id!);
      changes.nodesRemoved++;
      changes.diff.removed.push({ label: describeNode(group.stats, group.key, group.keys, rules).label });
      continue;
    }
    const weight = weightChange.get(group.id!) ?? 0;
    const stats = serializeStats(group.stats);
    // A node its notes left as they were (an edit elsewhere in the note) is not rewritten: SQLite
    // rewrites a whole row, and a concept in thousands of notes carries a long list.
    if (group.noteIds === undefined && weight === 0 && stats === group.storedStats) continue;
    const shown = describeNode(group.stats, group.key, group.keys, rules);
    await tx
      .update(graphNodes)
      .set({
        weight: sql`${graphNodes.weight} + ${weight}`,
        label: shown.label,
        type: shown.type,
        description: shown.description,
        aliases: JSON.stringify(shown.aliases),
        hidden: shown.hidden,
        ...(group.noteIds !== undefined && { noteIds: JSON.stringify(group.noteIds) }),
        stats,
      })
      .where(eq(graphNodes.id, group.id!));
  }
  if (gone.length) {
    // Their edges were stated only by their notes, so they went above; the cascade takes the keys.
    await tx.delete(graphNodes).where(sql`${graphNodes.id} in ${inJson(gone)}`);
  }
  // New nodes were written with no mentions: their weight is what was just inserted.
  for (const group of born) {
    const weight = weightChange.get(group.id!) ?? 0;
    if (weight) await tx.update(graphNodes).set({ weight }).where(eq(graphNodes.id, group.id!));
  }
  const goneSet = new Set(gone);
  await refreshDegrees(tx, [...degreeIds].filter((id) => !goneSet.has(id)));
  await tx.run(sql`
    update ${graphNoteExtractions} set applied_result = case when status = 'ok' then result end, applied = 1
    where note_id in ${inJson(noteIds)}`);
  return changes;
}
