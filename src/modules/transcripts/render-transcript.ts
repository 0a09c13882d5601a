import type { SpeechSegment } from "../llm/speech-to-text";

/** A paragraph holds about this much speech at most. */
const PARAGRAPH_SECONDS = 60;
/** A silence longer than this always starts a new paragraph. */
const PAUSE_SECONDS = 2;

export interface TranscriptSection {
  /** `subtitles (zh-CN)`, or `speech-to-text (<model>, <language>), machine-generated`. */
  source: string;
  /** Timed segments; null for an untimed transcript (then `text`). */
  segments: SpeechSegment[] | null;
  text?: string;
  /** Makes each paragraph's time a link to that second (Bilibili). */
  linkAt?: (seconds: number) => string;
  /** Lines after the paragraphs: why it stops early, or what went wrong. */
  notes?: string[];
}

/** The note's `## Transcript` section (CONTRACT "Transcripts"). */
export function renderTranscript(section: TranscriptSection): string {
  const blocks = ["## Transcript", section.source];
  if (section.segments) {
    for (const paragraph of paragraphs(section.segments)) {
      const seconds = Math.floor(paragraph[0]!.start);
      const time = clockTime(seconds);
      const label = section.linkAt ? `[${time}](${section.linkAt(seconds)})` : `[${time}]`;
      blocks.push(`${label} ${joinWords(paragraph.map((segment) => segment.text))}`);
    }
  } else if (section.text?.trim()) {
    blocks.push(section.text.trim());
  }
  blocks.push(...(section.notes ?? []));
  return blocks.join("\n\n");
}

/** Groups segments into paragraphs of at most about a minute; a pause over 2 s always breaks one. */
export function paragraphs(segments: SpeechSegment[]): SpeechSegment[][] {
  const result: SpeechSegment[][] = [];
  let current: SpeechSegment[] = [];
  for (const segment of segments) {
    const first = current[0];
    const last = current.at(-1);
    if (first && last && (segment.start - last.end > PAUSE_SECONDS || segment.end - first.start > PARAGRAPH_SECONDS)) {
      result.push(current);
      current = [];
    }
    current.push(segment);
  }
  if (current.length) result.push(current);
  return result;
}

/** `mm:ss`, or `h:mm:ss` from an hour on. */
export function clockTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const mmss = `${String(Math.floor((total % 3600) / 60)).padStart(2, "0")}:${String(total % 60).padStart(2, "0")}`;
  return hours ? `${hours}:${mmss}` : mmss;
}

/**
 * Joins lines with a space; Chinese and Japanese run on without one after their own punctuation
 * (subtitle lines seldom end in any, so a space keeps their phrases apart).
 */
function joinWords(texts: string[]): string {
  let joined = "";
  for (const text of texts.map((part) => part.replace(/\s+/g, " ").trim()).filter(Boolean)) {
    const runsOn = /[\u3001\u3002\uff01\uff0c\uff1a\uff1b\uff1f]$/.test(joined) && /^[\u3000-\u9fff\uff00-\uffef]/.test(text);
    joined += joined && !runsOn ? ` ${text}` : text;
  }
  return joined;
}
