import type { TextSpan } from "../../extraction";
import { firstSpanFrom } from "./mentions";

/** One concept's mentions in the note's content, by the concept's index. */
export interface PlacedMentions {
  concept: number;
  spans: readonly TextSpan[];
}

/** Two concepts read next to each other: in one sentence (strong, labelled by the verb between them) or one paragraph (weak). */
export interface CoOccurrence {
  source: number;
  target: number;
  label: string;
  sameSentence: boolean;
  span: TextSpan;
}

const RELATED = "related to";
/** Concepts of one paragraph paired with each other: its first ones in reading order (half a long note's key phrases). */
const MAX_PARAGRAPH_MEMBERS = 15;
const BLANK_LINE = /\n[ \t]*\n/;
const SENTENCE_END = /[.!?。！？；;]/u;
// A line that starts a block of its own ends the sentence before it: a list item, heading, quote or table row.
const BLOCK_START = /^[ \t]*(?:[-*+>|#]|\d{1,3}[.)、])/;

/**
 * Concepts that share a paragraph are related (once per paragraph, "related to"), and neighbours in
 * reading order within a sentence once more, labelled by the first verb between them ("uses",
 * "写了") when there is one. Sentence and paragraph boundaries are read from the note's visible text.
 */
export function coOccurrences(visible: string, from: number, to: number, mentions: PlacedMentions[], verbs: readonly TextSpan[]): CoOccurrence[] {
  const placed: { concept: number; start: number; end: number }[] = [];
  for (const { concept, spans } of mentions) for (const span of spans) if (span.start >= from && span.end <= to) placed.push({ concept, ...span });
  // Longest first at a position; a mention inside another ("graph" in "knowledge graph") is not read twice.
  placed.sort((a, b) => a.start - b.start || b.end - a.end);
  const reading: typeof placed = [];
  for (const mention of placed) if (reading.length === 0 || mention.start >= reading[reading.length - 1]!.end) reading.push(mention);

  const found: CoOccurrence[] = [];
  // Every pair of concepts in a paragraph (its first few, so a long paragraph costs O(1) pairs). Nested mentions count:
  // "marathon" inside "Berlin Marathon" is in that paragraph too.
  let paragraph: { concept: number; start: number; end: number }[] = [];
  const closeParagraph = () => {
    for (let i = 0; i < paragraph.length; i++) {
      for (let j = i + 1; j < paragraph.length; j++) {
        const [first, second] = [paragraph[i]!, paragraph[j]!];
        found.push({ source: first.concept, target: second.concept, label: RELATED, sameSentence: false, span: { start: first.start, end: second.end } });
      }
    }
    paragraph = [];
  };
  let reached = -1;
  for (const mention of placed) {
    if (reached >= 0 && mention.start > reached && BLANK_LINE.test(visible.slice(reached, mention.start))) closeParagraph();
    if (paragraph.length < MAX_PARAGRAPH_MEMBERS && !paragraph.some((member) => member.concept === mention.concept)) paragraph.push(mention);
    reached = Math.max(reached, mention.end);
  }
  closeParagraph();
  // Neighbours in a sentence, in reading order (the longest mention at a place).
  for (let at = 1; at < reading.length; at++) {
    const [before, after] = [reading[at - 1]!, reading[at]!];
    const between = visible.slice(before.end, after.start);
    if (before.concept === after.concept || BLANK_LINE.test(between)) continue;
    if (SENTENCE_END.test(between) || between.split("\n").slice(1).some((line) => BLOCK_START.test(line))) continue;
    // Neighbours in a sentence: labelled by the verb between them, and counted again as a closer tie.
    const verb = verbBetween(verbs, before.end, after.start);
    found.push({
      source: before.concept,
      target: after.concept,
      label: verb ? visible.slice(verb.start, verb.end).toLowerCase() : RELATED,
      sameSentence: true,
      span: { start: before.start, end: after.end },
    });
  }
  return found;
}

function verbBetween(verbs: readonly TextSpan[], from: number, to: number): TextSpan | undefined {
  const verb = firstSpanFrom(verbs, from);
  return verb && verb.end <= to ? verb : undefined;
}
