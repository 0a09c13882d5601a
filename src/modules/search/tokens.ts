/**
 * The one place text becomes search tokens, for the index, the query and the highlights alike.
 * Each base character with its combining marks is folded (NFKC, lower case, accents dropped
 * outside kana); words are runs of letters and digits; every Han or kana character is a token of
 * its own (the index stores CJK runs as bigrams, see `indexTokens`), so a CJK word is found
 * wherever it sits in a run.
 */
export interface Token {
  /** Folded text: what the index stores and the query compares. */
  text: string;
  /** UTF-16 offsets of the token in the original text. */
  start: number;
  end: number;
  cjk: boolean;
}

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\u3005]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

const folded = new Map<string, string>();

/** Case, width and accent folding of one cluster (cached: text repeats the same few hundred). */
export function foldCluster(cluster: string): string {
  let result = folded.get(cluster);
  if (result === undefined) {
    result = cluster.normalize("NFKC").toLowerCase();
    // が and か are different words; é and e are not.
    if (!KANA.test(result)) result = result.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
    if (folded.size < 100_000) folded.set(cluster, result);
  }
  return result;
}

/** Whether a character (or any character of a token) is Han or kana. */
export function isCjk(char: string): boolean {
  return CJK_CHAR.test(char);
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let word = "";
  let wordStart = 0;
  let wordEnd = 0;
  const endWord = () => {
    if (word) tokens.push({ text: word, start: wordStart, end: wordEnd, cjk: false });
    word = "";
  };
  let at = 0;
  while (at < text.length) {
    const start = at;
    const code = text.charCodeAt(at);
    // Plain ASCII needs no Unicode work: most of most notes.
    if (code < 0x80 && !isMarkAt(text, at + 1)) {
      at++;
      if ((code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39)) {
        if (!word) wordStart = start;
        word += text[start];
        wordEnd = at;
      } else if (code >= 0x41 && code <= 0x5a) {
        if (!word) wordStart = start;
        word += String.fromCharCode(code + 32);
        wordEnd = at;
      } else endWord();
      continue;
    }
    // A base character and the marks that belong to it (half-width kana voicing marks included).
    at += code >= 0xd800 && code <= 0xdbff && at + 1 < text.length ? 2 : 1;
    while (isMarkAt(text, at)) at += text.charCodeAt(at) >= 0xd800 && text.charCodeAt(at) <= 0xdbff ? 2 : 1;
    const end = at;
    for (const char of foldCluster(text.slice(start, end))) {
      if (!isCjk(char) && isWordChar(char)) {
        if (!word) wordStart = start;
        word += char;
        wordEnd = end;
      } else {
        endWord();
        if (isCjk(char)) tokens.push({ text: char, start, end, cjk: true });
      }
    }
  }
  endWord();
  return tokens;
}

const MARK = /^[\p{M}\uFF9E\uFF9F]$/u;
const marks = new Map<number, boolean>();

function isMarkAt(text: string, at: number): boolean {
  if (at >= text.length) return false;
  const code = text.codePointAt(at)!;
  if (code < 0x300) return false;
  let mark = marks.get(code);
  if (mark === undefined) marks.set(code, (mark = MARK.test(String.fromCodePoint(code))));
  return mark;
}

function isWordChar(char: string): boolean {
  return WORD_CHAR.test(char);
}

/**
 * The index's form of a token list: each run of CJK characters becomes its overlapping bigrams
 * and its last character (one index token per character, so phrase positions stay aligned).
 * Bigrams keep postings small where single common characters would be in nearly every note.
 */
export function indexTokens(tokens: string[]): string[] {
  return tokens.map((token, at) => {
    const next = tokens[at + 1];
    return next !== undefined && isCjk(token) && isCjk(next) ? token + next : token;
  });
}

/**
 * The query's form of one term's tokens, matching what `indexTokens` wrote: a CJK run inside the
 * term is its bigrams; a lone CJK character ending the term is a prefix (it may start a bigram).
 */
export function queryTokens(tokens: string[], prefix: boolean): { tokens: string[]; prefix: boolean } {
  const out: string[] = [];
  let lastIsPrefix = prefix;
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at]!;
    const next = tokens[at + 1];
    if (!isCjk(token)) out.push(token);
    else if (next !== undefined && isCjk(next)) out.push(token + next);
    else if (next !== undefined) out.push(token); // the run ends before a word, in the note too
    else if (at === 0 || !isCjk(tokens[at - 1]!)) {
      out.push(token);
      lastIsPrefix = true;
    }
    // else: the run's last character is already in its last bigram
  }
  return { tokens: out, prefix: lastIsPrefix };
}
