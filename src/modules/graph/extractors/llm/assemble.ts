import { conceptKey } from "../../concept-key";
import type { ExtractedConcept, ExtractedRelation, TextSpan } from "../../extraction";
import type { TextChunk } from "../../../llm/chunk-text";
import { TextLocator } from "./locate";
import type { AnswerConcept, KnowledgeGraphAnswer } from "./schema";

const MAX_MENTIONS = 20;

interface ConceptDraft {
  concept: ExtractedConcept;
}

/**
 * Turns the model's answers for each chunk of a note into one extraction: concepts merged by name
 * (or alias), mentions located in the text and offset into the whole note, relations resolved to
 * known concepts. A concept that cannot be found anywhere gets the title's span, so every concept
 * keeps at least one mention pointing into the note.
 */
export class ExtractionAssembler {
  readonly #drafts: ConceptDraft[] = [];
  readonly #byKey = new Map<string, ConceptDraft>();
  readonly #relations = new Map<string, ExtractedRelation>();
  readonly #existing = new Map<string, string>();
  readonly #titleLength: number;

  constructor(titleLength: number, existingConcepts: Iterable<string>) {
    this.#titleLength = titleLength;
    for (const name of existingConcepts) {
      const key = conceptKey(name);
      if (key && !this.#existing.has(key)) this.#existing.set(key, name.trim());
    }
  }

  /** Names found so far, so later chunks of the same note reuse them. */
  get names(): string[] {
    return this.#drafts.map((draft) => draft.concept.name);
  }

  add(chunk: TextChunk, answer: KnowledgeGraphAnswer): void {
    const locator = new TextLocator(chunk.text);
    const shift = (span: TextSpan): TextSpan => ({ start: span.start + chunk.start, end: span.end + chunk.start });

    for (const found of answer.concepts) {
      const mentions = locateConcept(locator, found).map(shift);
      this.#mergeConcept(found, mentions);
    }

    for (const relation of answer.relations) {
      const source = this.#resolve(relation.source);
      const target = this.#resolve(relation.target);
      if (!source || !target || source === target) continue;
      const label = relation.label;
      const key = `${conceptKey(source.concept.name)}\u0000${conceptKey(target.concept.name)}\u0000${label.toLowerCase()}`;
      if (this.#relations.has(key)) continue;
      const evidence = relation.evidence ? locator.findQuote(relation.evidence) : undefined;
      this.#relations.set(key, {
        source: source.concept.name,
        target: target.concept.name,
        label,
        ...(evidence ? { span: shift(evidence) } : {}),
      });
    }
  }

  result(): { concepts: ExtractedConcept[]; relations: ExtractedRelation[] } {
    const concepts = this.#drafts.map(({ concept }) => ({
      ...concept,
      mentions: concept.mentions.length > 0 ? concept.mentions : [{ start: 0, end: this.#titleLength }],
    }));
    return { concepts, relations: [...this.#relations.values()] };
  }

  #resolve(name: string): ConceptDraft | undefined {
    return this.#byKey.get(conceptKey(name));
  }

  #mergeConcept(found: AnswerConcept, mentions: TextSpan[]): void {
    const key = conceptKey(found.name);
    if (!key) return;
    const aliasKeys = found.aliases.map(conceptKey).filter((alias) => alias && alias !== key);
    const draft = this.#byKey.get(key);
    if (!draft) {
      // The user's graph spelling wins, so "javascript" from the model joins the "JavaScript" node.
      const name = this.#existing.get(key) ?? found.name;
      const created: ConceptDraft = {
        concept: {
          name,
          type: found.type,
          description: found.description,
          aliases: uniqueAliases(found.aliases, key),
          mentions: normaliseSpans(mentions),
        },
      };
      this.#drafts.push(created);
      this.#register(created, key);
      for (const alias of aliasKeys) this.#register(created, alias);
      return;
    }
    const concept = draft.concept;
    if (concept.type === "other" && found.type !== "other") concept.type = found.type;
    if (!concept.description && found.description) concept.description = found.description;
    const names = found.name === concept.name ? found.aliases : [found.name, ...found.aliases];
    concept.aliases = uniqueAliases([...concept.aliases, ...names], conceptKey(concept.name));
    concept.mentions = normaliseSpans([...concept.mentions, ...mentions]);
    for (const alias of aliasKeys) this.#register(draft, alias);
  }

  #register(draft: ConceptDraft, key: string): void {
    // First claim wins: an alias never steals the name of another concept.
    if (!this.#byKey.has(key)) this.#byKey.set(key, draft);
  }
}

/**
 * Where the concept is mentioned in one chunk: the name (or an alias) inside the evidence quote,
 * else the quote itself, plus the other whole-word occurrences of the name and aliases.
 */
function locateConcept(locator: TextLocator, concept: AnswerConcept): TextSpan[] {
  const names = [concept.name, ...concept.aliases];
  const spans: TextSpan[] = [];
  const quote = concept.evidence ? locator.findQuote(concept.evidence) : undefined;
  if (quote) {
    const inside = names.map((name) => locator.findName(name, 1, quote)[0]).find(Boolean);
    spans.push(inside ?? quote);
  }
  for (const name of names) {
    if (spans.length >= MAX_MENTIONS) break;
    spans.push(...locator.findName(name, MAX_MENTIONS - spans.length));
  }
  return spans;
}

function normaliseSpans(spans: TextSpan[]): TextSpan[] {
  const unique = new Map<string, TextSpan>();
  for (const span of spans) unique.set(`${span.start}:${span.end}`, span);
  return [...unique.values()].sort((a, b) => a.start - b.start || a.end - b.end).slice(0, MAX_MENTIONS);
}

function uniqueAliases(aliases: string[], nameKey: string): string[] {
  const seen = new Set([nameKey]);
  const kept: string[] = [];
  for (const alias of aliases) {
    const key = conceptKey(alias);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    kept.push(alias.trim());
  }
  return kept;
}
