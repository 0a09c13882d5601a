import { conceptKey } from "../../concept-key";
import type { TermIndex } from "./term-index";

/** Two names the note itself states are one concept. */
export type AliasPair = [name: string, alias: string];

// "large language models (LLMs)", "大语言模型（简称大模型）", "Japan Rail Pass (JR Pass)".
const PARENTHETICAL = /[(（]\s*(简称|又称|也叫|也称|以下简称|aka|a\.k\.a\.|short for)?\s*[“"「]?([^()（）\n“”"「」,，;；:：]{1,24}?)[”"」]?\s*[)）]/giu;
const ACRONYM = /^[\p{Lu}\d][\p{L}\d&.-]{0,11}$/u;
const CJK = /\p{Script=Han}/u;
const TITLE_WORD = /^\p{Lu}\p{Ll}+$/u;
const NAME_DOT = /[·・]/;

/**
 * Alias pairs a note states in a parenthetical after a term: an acronym whose capitals are the
 * initials of the words before it (or of a Chinese term), or anything introduced by 简称/又称/aka.
 */
export function statedAliases(prose: string, terms: TermIndex): AliasPair[] {
  const endingAt = new Map<number, { start: number; end: number }>();
  for (const term of terms.values()) {
    term.ends.forEach((end, index) => {
      const start = term.starts[index]!;
      const known = endingAt.get(end);
      if (!known || known.start > start) endingAt.set(end, { start, end });
    });
  }
  const pairs: AliasPair[] = [];
  for (const match of prose.matchAll(PARENTHETICAL)) {
    let before = match.index;
    while (before > 0 && prose[before - 1] === " ") before--;
    const term = endingAt.get(before);
    if (!term) continue;
    const name = prose.slice(term.start, term.end);
    const alias = match[2]!.trim();
    if (conceptKey(alias) === "" || conceptKey(alias) === conceptKey(name)) continue;
    if (match[1] || abbreviates(alias, name) || transliterates(alias, name)) pairs.push([name, alias]);
  }
  return pairs;
}

const LATIN_FULL_NAME = /^\p{Lu}[\p{Ll}'’-]+(?: \p{Lu}[\p{Ll}'’-]+){0,3}$/u;

/** A Chinese name with its original spelling after it: 卡尼曼（Daniel Kahneman）. */
function transliterates(alias: string, name: string): boolean {
  return CJK.test(name) && !CJK.test(alias) && LATIN_FULL_NAME.test(alias);
}

/** "LLMs" for "large language models", "JR Pass" for "Japan Rail Pass", "RAG" for "检索增强生成". */
function abbreviates(alias: string, name: string): boolean {
  const words = alias.split(/\s+/);
  if (!ACRONYM.test(words[0]!) || words.length > 3) return false;
  const capitals = alias.replace(/s$/, "").replace(/[^\p{Lu}]/gu, "");
  if (capitals.length < 2) return false;
  if (CJK.test(name)) return !CJK.test(alias) && words.length === 1;
  const initials = name
    .split(/[\s-]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase())
    .join("");
  return initials === capitals;
}

/** A person's full name and the surname that stands for it: "Daniel Kahneman" → "Kahneman", "丹尼尔·卡尼曼" → "卡尼曼". */
export function surnameOf(surface: string): string | undefined {
  if (NAME_DOT.test(surface)) {
    const parts = surface.split(NAME_DOT);
    const last = parts[parts.length - 1]!;
    return [...last].length >= 2 ? last : undefined;
  }
  const words = surface.split(" ");
  if (words.length < 2 || words.length > 3 || !words.every((word) => TITLE_WORD.test(word))) return undefined;
  return words[words.length - 1];
}

/** The other grammatical number of an English name ("knowledge graphs" ↔ "knowledge graph", "LLM" ↔ "LLMs"). */
// Plurals in "-ses" whose singular has no "e" (most have one: databases, cases, phases).
const ES_SINGULARS = [
  "alias", "bias", "canvas", "atlas", "gas", "bus", "lens", "status", "virus", "campus", "bonus", "census", "corpus", "consensus", "radius",
];
const IRREGULAR_SINGULAR = new Map(ES_SINGULARS.map((word) => [`${word}es`, word]));
const ES_SINGULAR = new Set(ES_SINGULARS);

// Asked for the same names note after note (every concept's name and aliases): remembered.
const variants = new Map<string, string | undefined>();
// Sized for a large corpus's distinct phrases (each asked once a note it is in), so the table is not refilled mid-build.
const MAX_VARIANTS = 200_000;

export function numberVariant(name: string): string | undefined {
  if (variants.has(name)) return variants.get(name);
  const variant = computeNumberVariant(name);
  if (variants.size >= MAX_VARIANTS) variants.clear();
  variants.set(name, variant);
  return variant;
}

function computeNumberVariant(name: string): string | undefined {
  if (!/^[\p{Script=Latin}\d .'-]+$/u.test(name)) return undefined;
  const last = name.slice(name.lastIndexOf(" ") + 1);
  if (last.length < 3 && !/^\p{Lu}{2,}$/u.test(last)) return undefined;
  if (/^\p{Lu}{2,}s$/u.test(last)) return name.slice(0, -1);
  if (/^\p{Lu}{2,}$/u.test(last)) return `${name}s`;
  // Names ("Kahneman", "iPhone") and numbered things have no plural.
  if (/\p{Lu}/u.test(last) || /\d/.test(last)) return undefined;
  const irregular = IRREGULAR_SINGULAR.get(last.toLowerCase());
  if (irregular) return name.slice(0, name.length - last.length) + last.slice(0, irregular.length);
  if (/(?:ss|us|is)$/i.test(last) || ES_SINGULAR.has(last.toLowerCase())) return `${name}es`;
  if (/[^aeiou]ies$/i.test(last)) return `${name.slice(0, -3)}y`;
  if (/(?:ches|shes|xes|sses)$/i.test(last)) return name.slice(0, -2);
  if (/s$/i.test(last)) return name.slice(0, -1);
  if (/[^aeiou]y$/i.test(last)) return `${name.slice(0, -1)}ies`;
  if (/(?:ch|sh|x)$/i.test(last)) return `${name}es`;
  return `${name}s`;
}

const LATIN_PHRASE = /^[a-z][a-z]*(?:[ -][a-z]+)+$/;
const ACRONYM_KEY = /^[a-z]{2,6}$/;

/** The initials of a Latin phrase key, singular: "large language models" → "llm"; undefined for other keys. */
export function phraseInitials(key: string): string | undefined {
  if (!LATIN_PHRASE.test(key)) return undefined;
  const words = key.split(/[ -]/);
  return words.length <= 6 ? words.map((word) => word[0]).join("") : undefined;
}

/** The key an acronym surface stands for ("LLMs" → "llm"), or undefined when the surface is not all capitals. */
export function acronymKey(surface: string): string | undefined {
  const bare = surface.endsWith("s") ? surface.slice(0, -1) : surface;
  if (!/^\p{Lu}{2,6}$/u.test(bare)) return undefined;
  const key = bare.toLowerCase();
  return ACRONYM_KEY.test(key) ? key : undefined;
}
