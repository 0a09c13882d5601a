import { createHash } from "node:crypto";
import { splitPassages } from "../ask/passages";

/** One thing of a note that gets a vector: its title with its tags, or a passage (the units "Ask your notes" cites). */
export interface EmbeddingUnit {
  kind: "title" | "passage";
  start: number;
  end: number;
  text: string;
  hash: string;
}

/** What a note is embedded as; `hash` lets an unchanged passage keep its vector across edits. */
export function noteUnits(note: { title: string; content: string; tags: string[] }): EmbeddingUnit[] {
  const heading = note.tags.length > 0 ? `${note.title}\n${note.tags.map((tag) => `#${tag}`).join(" ")}` : note.title;
  const units: EmbeddingUnit[] = [{ kind: "title", start: 0, end: 0, text: heading, hash: textHash("title", heading) }];
  for (const span of splitPassages(note.content)) {
    const text = note.content.slice(span.start, span.end);
    units.push({ kind: "passage", ...span, text, hash: textHash("passage", text) });
  }
  return units;
}

/** A concept as embedded for search: its label with its description (merge suggestions embed the label alone). */
export function conceptText(node: { label: string; description: string }): string {
  return node.description ? `${node.label}: ${node.description}` : node.label;
}

export function textHash(kind: string, text: string): string {
  return createHash("sha256").update(kind).update("\0").update(text).digest("base64url").slice(0, 22);
}
