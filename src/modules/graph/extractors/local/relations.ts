import type { ExtractedRelation } from "../../extraction";
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
}

/** Relations beyond this per note make graphs unreadable; the strongest are kept. */
export const MAX_RELATIONS = 40;
/** Only the most salient concepts of a section are paired, so a long section costs O(1) pairs. */
const MAX_SECTION_MEMBERS = 12;

interface Candidate {
  source: RelatableConcept;
  target: RelatableConcept;
  label: "mentions" | "related to";
  weight: number;
  sectionIndex: number;
}

/**
 * Concepts in one section are "related to" each other; a heading topic "mentions" what its section
 * holds (and its sub-headings), and a title topic does the same for sections no heading topic owns.
 * Strength is the number of shared sections, with structural "mentions" counting one extra.
 */
export function relateConcepts(input: RelationInput): ExtractedRelation[] {
  const byKey = new Map(input.concepts.map((concept) => [concept.key, concept]));
  const members = sectionMembers(input);
  const candidates = new Map<string, Candidate>();
  const add = (source: RelatableConcept, target: RelatableConcept, label: Candidate["label"], sectionIndex: number): void => {
    if (source.key === target.key) return;
    const pairKey = source.key < target.key ? `${source.key}\u0000${target.key}` : `${target.key}\u0000${source.key}`;
    const existing = candidates.get(pairKey);
    if (!existing) {
      candidates.set(pairKey, { source, target, label, weight: label === "mentions" ? 2 : 1, sectionIndex });
      return;
    }
    existing.weight += 1;
    if (label === "mentions" && existing.label !== "mentions") Object.assign(existing, { source, target, label, sectionIndex });
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
    const inSection = members.get(index) ?? [];
    if (section.isTitle) {
      pairUp(inSection, index, add);
      return;
    }
    const own = headingConcept(index);
    const outer = enclosingOwner(index);
    if (own && outer) add(outer, own, "mentions", index);
    const owner = own ?? outer;
    const others = inSection.filter((concept) => concept.key !== owner?.key);
    if (owner) for (const concept of others) add(owner, concept, "mentions", index);
    pairUp(others, index, add);
  });

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
      span: { ...input.sections[candidate.sectionIndex]!.span },
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

function pairUp(
  concepts: RelatableConcept[],
  sectionIndex: number,
  add: (source: RelatableConcept, target: RelatableConcept, label: "related to", sectionIndex: number) => void,
): void {
  for (let i = 0; i < concepts.length; i++) {
    for (let j = i + 1; j < concepts.length; j++) {
      const [first, second] = [concepts[i]!, concepts[j]!].sort((a, b) => a.firstStart - b.firstStart || compareKeys(a.key, b.key));
      add(first!, second!, "related to", sectionIndex);
    }
  }
}
