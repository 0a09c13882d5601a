import { sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { conceptKey } from "../graph/concept-key";
import { searchIndexReady } from "../search/index-ready";
import { ownerPrefix } from "../search/search-document";
import { conceptNames, namedConcepts, type GraphConcept } from "./named-concepts";
import { bm25, containsName, inverseDocumentFrequency, nameTokens, passageWords, type PassageWords } from "./passage-match";
import { splitPassages } from "./passages";
import { passagePlaces } from "./passage-place";
import { questionTerms, type QuestionTerm } from "./question-terms";
import type { PassageHit } from "../semantic/meaning-passages";
import { SIMILARITY_FLOOR } from "../semantic/meaning-ranking";

export interface RetrievedPassage {
  note_id: number;
  title: string;
  start: number;
  end: number;
  text: string;
  score: number;
  concepts: { id: number; label: string }[];
  /** The `[p. N]` page of an imported document the passage is on, else null. */
  page: number | string | null;
  /** The `[picture N]` whose text the passage is in, else null. */
  picture: number | null;
}

export interface Retrieval {
  passages: RetrievedPassage[];
  /** The concepts the question named. */
  concepts: { id: number; label: string }[];
  /** Each returned passage's note content, for mapping an answer's citations back to it. */
  contents: Map<number, string>;
}

// Notes the full-text index contributes, best BM25 first.
const TEXT_NOTES = 30;
// Notes per named concept (most mentions first), and per neighbour.
const CONCEPT_NOTES = 20;
const NEIGHBOURS = 8;
const NEIGHBOUR_NOTES = 6;
/** At most this many passages of one note: an answer draws on several notes where it can. */
export const MAX_PASSAGES_PER_NOTE = 2;
// Reciprocal rank fusion (Cormack et al.): each list adds weight / (K + rank).
const RRF_K = 60;
const WEIGHTS = { text: 1, meaning: 1, concept: 0.5, neighbour: 0.5 } as const;
// A term in the note's title lends every passage of the note this share of its weight.
const TITLE_SHARE = 0.3;

interface Candidate {
  noteId: number;
  title: string;
  content: string;
  start: number;
  end: number;
  words: PassageWords;
  text: number;
  /** Cosine similarity to the question when search by meaning found this passage. */
  meaning?: number;
  fused: number;
}

/**
 * The passages of the user's notes that best answer the question, fused from three rankings:
 * BM25 of passages over the question's words (candidates: the notes the full-text index ranks
 * first for any of the words), passages naming the concepts the question names (labels and
 * aliases), and, weighted lower, passages naming those concepts' neighbours.
 */
export async function retrievePassages(db: Database, input: { userId: number; question: string; limit: number; meaning?: PassageHit[] }): Promise<Retrieval> {
  const { userId, question } = input;
  await searchIndexReady(db, userId);
  const terms = questionTerms(question);
  const named = await namedConcepts(db, userId, question);
  const neighbours = await neighbourConcepts(db, userId, named);

  const [textNotes, idf, averageLength] = await textRanking(db, userId, terms);
  const conceptNotes = await mentioningNotes(db, userId, named, CONCEPT_NOTES);
  const neighbourNotes = await mentioningNotes(db, userId, neighbours, NEIGHBOUR_NOTES);
  const meaning = input.meaning ?? [];
  const noteIds = [...new Set([...textNotes, ...meaning.map((hit) => hit.noteId), ...conceptNotes, ...neighbourNotes])];
  const notes = await loadNotes(db, userId, noteIds);

  const candidates: Candidate[] = [];
  const titleWords = new Map<number, PassageWords>();
  for (const note of notes) {
    titleWords.set(note.id, passageWords(note.title));
    for (const span of splitPassages(note.content)) {
      const words = passageWords(note.content.slice(span.start, span.end));
      candidates.push({ noteId: note.id, title: note.title, content: note.content, ...span, words, text: 0, fused: 0 });
    }
  }
  for (const candidate of candidates) {
    const own = bm25(candidate.words, terms, idf, averageLength);
    candidate.text = own > 0 ? own + TITLE_SHARE * bm25(titleWords.get(candidate.noteId)!, terms, idf, averageLength) : 0;
  }

  // Search by meaning ranks passages itself; a passage only it found counts above the similarity floor.
  const bySpan = new Map(candidates.map((candidate) => [`${candidate.noteId}:${candidate.start}:${candidate.end}`, candidate]));
  for (const hit of meaning) {
    const candidate = bySpan.get(`${hit.noteId}:${hit.start}:${hit.end}`);
    if (candidate && candidate.meaning === undefined) candidate.meaning = hit.similarity;
  }
  const fuse = (ranked: Candidate[], weight: number) => ranked.forEach((candidate, rank) => (candidate.fused += weight / (RRF_K + rank + 1)));
  fuse(
    candidates.filter((candidate) => candidate.text > 0).sort((a, b) => b.text - a.text),
    WEIGHTS.text,
  );
  fuse(
    candidates.filter((candidate) => candidate.meaning !== undefined && (candidate.text > 0 || candidate.meaning >= SIMILARITY_FLOOR)).sort((a, b) => b.meaning! - a.meaning!),
    WEIGHTS.meaning,
  );
  fuse(byNames(candidates, named), WEIGHTS.concept);
  // A neighbour's passage counts only where it also holds a word of the question: alone it drifts off the subject.
  fuse(
    byNames(
      candidates.filter((candidate) => candidate.text > 0),
      neighbours,
    ),
    WEIGHTS.neighbour,
  );

  const perNote = new Map<number, number>();
  const chosen = candidates
    .filter((candidate) => candidate.fused > 0)
    .sort((a, b) => b.fused - a.fused || b.text - a.text || a.noteId - b.noteId || a.start - b.start)
    .filter((candidate) => {
      const taken = perNote.get(candidate.noteId) ?? 0;
      perNote.set(candidate.noteId, taken + 1);
      return taken < MAX_PASSAGES_PER_NOTE;
    })
    .slice(0, input.limit);

  const mentioned = await passageConcepts(db, userId, chosen);
  const places = new Map<number, ReturnType<typeof passagePlaces>>();
  const placeOf = (candidate: Candidate) => {
    if (!places.has(candidate.noteId)) places.set(candidate.noteId, passagePlaces(candidate.content));
    return places.get(candidate.noteId)!(candidate.start);
  };
  return {
    passages: chosen.map((candidate, index) => ({
      note_id: candidate.noteId,
      title: candidate.title,
      start: candidate.start,
      end: candidate.end,
      text: candidate.content.slice(candidate.start, candidate.end),
      score: Math.round(candidate.fused * 1e6) / 1e6,
      concepts: mentioned[index]!,
      ...placeOf(candidate),
    })),
    concepts: named.map(({ id, label }) => ({ id, label })),
    contents: new Map(chosen.map((candidate) => [candidate.noteId, candidate.content])),
  };
}

/** Passages naming any of the concepts, most distinct concepts first (then by their text score). */
function byNames(candidates: Candidate[], concepts: GraphConcept[]): Candidate[] {
  if (concepts.length === 0) return [];
  const names = concepts.map((concept) => concept.names.map(nameTokens));
  const counted = candidates.map((candidate) => ({
    candidate,
    hits: names.filter((forms) => forms.some((form) => containsName(candidate.words, form))).length,
  }));
  return counted
    .filter(({ hits }) => hits > 0)
    .sort((a, b) => b.hits - a.hits || b.candidate.text - a.candidate.text)
    .map(({ candidate }) => candidate);
}

/**
 * The notes the index ranks first for any of the terms, with each term's IDF over the user's
 * notes. Every word carries its owner inside MATCH (see search-document.ts), so only the user's
 * notes are read. Document frequencies come from the index's term list (one lookup a term); a
 * word in more than RANKED_DOCUMENTS notes weighs little and BM25 would read all its postings, so
 * it only scores passages and does not rank notes (unless it is the rarest word).
 */
async function textRanking(db: Database, userId: number, terms: QuestionTerm[]): Promise<[number[], number[], number]> {
  if (terms.length === 0) return [[], [], AVERAGE_PASSAGE_TOKENS];
  const owner = ownerPrefix(userId);
  const [total, ...frequencies] = await db.batch([
    db.all<{ n: number }>(sql`select count(*) as n from notes where user_id = ${userId}`),
    ...terms.map((term) =>
      term.prefix
        ? db.all<{ n: number }>(sql`select coalesce(sum(doc), 0) as n from notes_fts_vocab where term >= ${owner + term.token} and term < ${`${owner}${term.token}\uffff`}`)
        : db.all<{ n: number }>(sql`select coalesce(sum(doc), 0) as n from notes_fts_vocab where term = ${owner + term.token}`),
    ),
  ]);
  const notes = Number(total[0]?.n ?? 0);
  const documents = frequencies.map((rows) => Math.min(notes, Number(rows[0]?.n ?? 0)));
  const idf = documents.map((matching) => inverseDocumentFrequency(notes, matching));
  const present = terms.map((term, index) => ({ term, matching: documents[index]! })).filter(({ matching }) => matching > 0);
  present.sort((a, b) => a.matching - b.matching);
  const ranking = present.filter(({ matching }, index) => index === 0 || matching <= RANKED_DOCUMENTS);
  if (ranking.length === 0) return [[], idf, AVERAGE_PASSAGE_TOKENS];
  const phrases = ranking.map(({ term }) => `"${(owner + term.token).replaceAll('"', '""')}"${term.prefix ? "*" : ""}`);
  const ranked = await db.all<{ id: number }>(
    sql`select rowid as id from notes_fts where notes_fts match ${`{title tags body}: (${phrases.join(" OR ")})`} order by rank limit ${TEXT_NOTES}`,
  );
  return [ranked.map((row) => Number(row.id)), idf, AVERAGE_PASSAGE_TOKENS];
}

// Past this many notes a word no longer ranks notes (see textRanking); the rarest word always does.
const RANKED_DOCUMENTS = 1000;
// A typical paragraph's length in tokens: BM25's length normalisation is relative to it.
const AVERAGE_PASSAGE_TOKENS = 60;

/** Visible concepts joined to the named ones by an edge, heaviest edges first. */
async function neighbourConcepts(db: Database, userId: number, named: GraphConcept[]): Promise<GraphConcept[]> {
  if (named.length === 0) return [];
  const ids = JSON.stringify(named.map((concept) => concept.id));
  // Driven by the named nodes through the source and target indexes (CROSS JOIN fixes the order).
  const rows = await db.all<{ id: number; label: string; aliases: string }>(sql`
    with touching(other, weight) as (
      select e.target_id, e.weight from json_each(${ids}) j cross join graph_edges e on e.source_id = j.value where e.user_id = ${userId}
      union all
      select e.source_id, e.weight from json_each(${ids}) j cross join graph_edges e on e.target_id = j.value where e.user_id = ${userId})
    select n.id as id, n.label as label, n.aliases as aliases, max(t.weight) as weight
    from touching t cross join graph_nodes n on n.id = t.other
    where n.user_id = ${userId} and n.hidden = 0 and n.id not in (select value from json_each(${ids}))
    group by n.id order by weight desc, n.weight desc, n.id limit ${NEIGHBOURS}`);
  return rows.map((row) => ({ id: row.id, label: row.label, names: conceptNames(row.label, row.aliases) }));
}

/** The user's notes that mention each concept, most mentions first, at most `perConcept` each. */
async function mentioningNotes(db: Database, userId: number, concepts: GraphConcept[], perConcept: number): Promise<number[]> {
  if (concepts.length === 0) return [];
  const rows = await db.all<{ note_id: number }>(sql`
    select note_id from (
      select m.note_id as note_id, row_number() over (partition by m.node_id order by count(*) desc, m.note_id desc) as place
      from json_each(${JSON.stringify(concepts.map((concept) => concept.id))}) j
      cross join graph_mentions m on m.node_id = j.value
      cross join notes n on n.id = m.note_id
      where n.user_id = ${userId}
      group by m.node_id, m.note_id)
    where place <= ${perConcept}`);
  return rows.map((row) => Number(row.note_id));
}

async function loadNotes(db: Database, userId: number, ids: number[]) {
  if (ids.length === 0) return [];
  // Rowid lookups (`+` keeps SQLite off the user's index: a user may have 100,000 notes).
  return db.all<{ id: number; title: string; content: string }>(sql`
    select id, title, content from notes where id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) and +user_id = ${userId}`);
}

/**
 * The visible concepts mentioned inside each passage, from the graph's mentions. A mention's
 * offsets index the title, a blank line and the content (as the extractor read the note); one
 * whose text no longer names its concept (the note was edited since the build) is left out.
 */
async function passageConcepts(db: Database, userId: number, passages: Candidate[]): Promise<{ id: number; label: string }[][]> {
  if (passages.length === 0) return [];
  const rows = await db.all<{ node_id: number; note_id: number; start: number; end: number; label: string; aliases: string }>(sql`
    select m.node_id, m.note_id, m.start, m.end, n.label, n.aliases
    from json_each(${JSON.stringify([...new Set(passages.map((passage) => passage.noteId))])}) j
    cross join graph_mentions m on m.note_id = j.value
    cross join graph_nodes n on n.id = m.node_id
    where n.user_id = ${userId} and n.hidden = 0
    order by n.weight desc, n.id`);
  return passages.map((passage) => {
    const offset = passage.title.length + 2;
    const found = new Map<number, string>();
    for (const row of rows) {
      if (row.note_id !== passage.noteId || found.has(row.node_id)) continue;
      const start = row.start - offset;
      const end = row.end - offset;
      if (start < passage.start || end > passage.end) continue;
      const said = conceptKey(passage.content.slice(start, end));
      if (conceptNames(row.label, row.aliases).some((name) => conceptKey(name) === said)) found.set(row.node_id, row.label);
    }
    return [...found].map(([id, label]) => ({ id, label }));
  });
}
