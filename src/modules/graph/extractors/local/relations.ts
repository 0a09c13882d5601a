import type { ExtractedRelation, TextSpan } from "../../extraction";
import type { CoOccurrence } from "./cooccurrence";
import { compareKeys } from "./keyphrases";
import type { Section } from "./sections";

export interface RelatableConcept {
  key: string;
  name: string;
  salience: number;
  firstStart: number;
  /** Indexes of the sections the concept occurs in. */
  sections: ReadonlySet<number>;
}

export interface RelationInput {
  concepts: RelatableConcept[];
  sections: Section[];
  /** Concept key of each heading that names a concept, by heading index. */
  headingKeys: (string | undefined)[];
  titleKey?: string;
  /** Concepts read next to each other, by index into `concepts`. */
  pairs: CoOccurrence[];
}

/** Relations beyond this per note make graphs unreadable; the strongest are kept. */
export const MAX_RELATIONS = 60;
/** Only the most salient concepts of a section are paired, so a long section costs O(1) pairs. */
const MAX_SECTION_MEMBERS = 12;
const RELATED = "related to";
const labelRank = (label: string) => (label === RELATED ? 2 : label === "mentions" ? 1 : 0);

interface Candidate {
  source: RelatableConcept;
  target: RelatableConcept;
  label: string;
  weight: number;
  span: TextSpan;
}

/**
 * Concepts read next to each other are related: within a sentence (weight 2) by the verb between
 * them, or "related to"; within a paragraph (weight 1) "related to". A heading topic "mentions" what
 * its section holds (and its sub-headings), and a title topic does the same for sections no heading
 * topic owns. Strength adds up over the note.
 */
export function relateConcepts(input: RelationInput): ExtractedRelation[] {
  const byKey = new Map(input.concepts.map((concept) => [concept.key, concept]));
  const members = sectionMembers(input);
  const candidates = new Map<string, Candidate>();
  const add = (source: RelatableConcept, target: RelatableConcept, label: string, weight: number, span: TextSpan): void => {
    if (source.key === target.key) return;
    const pairKey = source.key < target.key ? `${source.key}\u0000${target.key}` : `${target.key}\u0000${source.key}`;
    const existing = candidates.get(pairKey);
    if (!existing) {
      candidates.set(pairKey, { source, target, label, weight, span });
      return;
    }
    existing.weight += weight;
    // The most telling label wins: a verb, then the structure's "mentions", then a bare co-occurrence.
    if (labelRank(label) < labelRank(existing.label)) Object.assign(existing, { source, target, label, span });
  };
  const lookup = (key: string | undefined) => (key === undefined ? undefined : byKey.get(key));
  const headingConcept = (index: number) => {
    const heading = input.sections[index]?.heading;
    return heading === undefined ? undefined : lookup(input.headingKeys[heading]);
  };
  const enclosingOwner = (index: number): RelatableConcept | undefined => {
    for (let parent = input.sections[index]?.parent; parent !== undefined; parent = input.sections[parent]?.parent) {
      const owner = headingConcept(parent);
      if (owner) return owner;
    }
    return lookup(input.titleKey);
  };

  input.sections.forEach((section, index) => {
    if (section.isTitle) return;
    const span = section.span;
    const own = headingConcept(index);
    const outer = enclosingOwner(index);
    if (own && outer) add(outer, own, "mentions", 2, span);
    const owner = own ?? outer;
    if (owner) for (const concept of members.get(index) ?? []) if (concept.key !== owner.key) add(owner, concept, "mentions", 2, span);
  });
  for (const pair of input.pairs) {
    const [source, target] = [input.concepts[pair.source]!, input.concepts[pair.target]!];
    add(source, target, pair.label, pair.sameSentence ? 2 : 1, pair.span);
  }

  return [...candidates.values()]
    .sort(
      (a, b) =>
        b.weight - a.weight ||
        b.source.salience + b.target.salience - (a.source.salience + a.target.salience) ||
        compareKeys(a.source.key, b.source.key) ||
        compareKeys(a.target.key, b.target.key),
    )
    .slice(0, MAX_RELATIONS)
    .map((candidate) => ({
      source: candidate.source.name,
      target: candidate.target.name,
      label: candidate.label,
      span: { ...candidate.span },
    }));
}

function sectionMembers(input: RelationInput): Map<number, RelatableConcept[]> {
  const members = new Map<number, RelatableConcept[]>();
  for (const concept of input.concepts) {
    for (const index of concept.sections) {
      const list = members.get(index);
      if (list) list.push(concept);
      else members.set(index, [concept]);
    }
  }
  for (const [index, list] of members) {
    list.sort((a, b) => b.salience - a.salience || compareKeys(a.key, b.key));
    members.set(index, list.slice(0, MAX_SECTION_MEMBERS));
  }
  return members;
}
