/**
 * The one place text becomes search tokens, for the index, the query and the highlights alike.
 * Each base character with its combining marks is folded (NFKC, lower case, accents dropped
 * outside kana); words are runs of letters and digits; every Han or kana character is a token of
 * its own, so a CJK word is found as the phrase of its characters wherever it sits in a run.
 */
export interface Token {
  /** Folded text: what the index stores and the query compares. */
  text: string;
  /** UTF-16 offsets of the token in the original text. */
  start: number;
  end: number;
  cjk: boolean;
}

// A base character and the marks that belong to it (half-width kana voicing marks included).
const CLUSTER = /[^\p{M}\uFF9E\uFF9F][\p{M}\uFF9E\uFF9F]*|[\p{M}\uFF9E\uFF9F]+/gsu;
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30FC\u3005]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const ASCII_WORD_CHAR = /[a-z0-9]/;

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
  for (const match of text.matchAll(CLUSTER)) {
    const start = match.index;
    const end = start + match[0].length;
    const code = match[0].charCodeAt(0);
    // Plain ASCII needs no Unicode work: most of most notes.
    const fold = code < 0x80 && match[0].length === 1 ? match[0].toLowerCase() : foldCluster(match[0]);
    for (const char of fold) {
      if (char.length === 1 && char.charCodeAt(0) < 0x80 ? ASCII_WORD_CHAR.test(char) : !isCjk(char) && WORD_CHAR.test(char)) {
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

/** The text FTS5 indexes: tokens separated by spaces, which `unicode61` splits exactly there. */
export function indexedText(text: string): string {
  return tokenize(text)
    .map((token) => token.text)
    .join(" ");
}
