import type { TextSpan } from "../../extraction";

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

const SENTENCE_END = /[.!?。！？；;]/u;
// A line that starts a block of its own ends the sentence before it: a list item, heading, quote or table row.
const BLOCK_START = /^[ \t]*(?:[-*+>|#]|\d{1,3}[.)、])/;

/**
 * Concepts whose mentions follow each other in reading order are related: a chain, never all pairs,
 * so a long paragraph adds one relation per new concept. Each sentence or paragraph boundary between
 * two mentions is read from the note's visible text; the label is the first verb between the two
 * mentions of a sentence ("uses", "写了"), else "related to".
 */
export function coOccurrences(visible: string, from: number, to: number, mentions: PlacedMentions[], verbs: readonly TextSpan[]): CoOccurrence[] {
  const placed: { concept: number; start: number; end: number }[] = [];
  for (const { concept, spans } of mentions) for (const span of spans) if (span.start >= from && span.end <= to) placed.push({ concept, ...span });
  // Longest first at a position; a mention inside another ("graph" in "knowledge graph") is not read twice.
  placed.sort((a, b) => a.start - b.start || b.end - a.end);
  const reading: typeof placed = [];
  for (const mention of placed) if (reading.length === 0 || mention.start >= reading[reading.length - 1]!.end) reading.push(mention);

  const found: CoOccurrence[] = [];
  for (let at = 1; at < reading.length; at++) {
    const [before, after] = [reading[at - 1]!, reading[at]!];
    if (before.concept === after.concept) continue;
    const between = visible.slice(before.end, after.start);
    if (/\n[ \t]*\n/.test(between)) continue;
    const sameSentence = !SENTENCE_END.test(between) && !between.split("\n").slice(1).some((line) => BLOCK_START.test(line));
    const verb = sameSentence ? verbBetween(verbs, before.end, after.start) : undefined;
    found.push({
      source: before.concept,
      target: after.concept,
      label: verb ? visible.slice(verb.start, verb.end).toLowerCase() : "related to",
      sameSentence,
      span: { start: before.start, end: after.end },
    });
  }
  return found;
}

function verbBetween(verbs: readonly TextSpan[], from: number, to: number): TextSpan | undefined {
  let low = 0;
  let high = verbs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (verbs[middle]!.start < from) low = middle + 1;
    else high = middle;
  }
  const verb = verbs[low];
  return verb && verb.end <= to ? verb : undefined;
}
