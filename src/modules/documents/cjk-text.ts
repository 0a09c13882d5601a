/**
 * Text of scripts written without spaces between words (Chinese, Japanese), and the radicals some
 * fonts map their ideographs to: a PDF whose font says 文 is "⽂" (KANGXI RADICAL SCRIPT) reads as
 * the same glyph but searches as another character.
 */

/** Ideographs, kana and the CJK punctuation and fullwidth forms set among them. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef\u2e80-\u2fdf]/u;

/** True when a line break between `before` and `after` joins without a space (either side is such a script). */
export function joinsWithoutSpace(before: string, after: string): boolean {
  return UNSPACED.test(before) || UNSPACED.test(after);
}

export function isUnspacedScript(character: string): boolean {
  return UNSPACED.test(character);
}

/**
 * CJK RADICALS SUPPLEMENT characters and the ideograph each stands for, in pairs, as Noto CJK (the
 * fonts Chromium and most Linux tools print Chinese with) draws them with one glyph. Unicode gives no
 * decomposition for most of them; the KANGXI RADICALS block has one (NFKC) and is read that way.
 */
const SUPPLEMENT_PAIRS =
  "⺂乛⺃乚⺅亻⺇𠘨⺉刂⺋㔾⺍𭕄⺎兀⺏尣⺐尢⺒巳⺓幺⺔彑⺖忄⺘扌⺙攵⺛旡⺞歺⺟母⺠民⺡氵⺣灬⺤爫⺦丬⺨犭⺩𤣩⺫罒⺭礻⺮𥫗⺯糹⺰纟⺱罓⺲罒⺳㓁⺹耂⺺肀⺽𦥑⺾艹⻂衤⻃覀⻄西⻅见⻇𧢲⻈讠⻉贝⻊𧾷⻋车⻍辶⻐钅⻑長⻒镸⻓长⻕𨸏⻖阝⻘青⻙韦⻚页⻛风⻜飞⻞𩙿⻟飠⻠饣⻡𩠐⻢马⻥鱼⻦鸟⻧卤⻨麦⻩黄⻪黾⻫斉⻬齐⻭歯⻮齿⻯竜⻰龙⻲亀⻳龟";

const SUPPLEMENT = new Map<string, string>();
{
  const characters = [...SUPPLEMENT_PAIRS];
  for (let i = 0; i + 1 < characters.length; i += 2) SUPPLEMENT.set(characters[i]!, characters[i + 1]!);
}

const RADICAL = /[\u2e80-\u2fdf]/gu;

/** Radicals (KANGXI RADICALS and the supplement) read as the ideographs they are drawn as. */
export function unifyRadicals(text: string): string {
  if (!/[\u2e80-\u2fdf]/u.test(text)) return text;
  return text.replace(RADICAL, (radical) => SUPPLEMENT.get(radical) ?? radical.normalize("NFKC"));
}

/** The last character of a text (a whole surrogate pair), "" for an empty one. */
export function lastCharacter(text: string): string {
  return Array.from(text.slice(-2)).at(-1) ?? "";
}

export function firstCharacter(text: string): string {
  return Array.from(text.slice(0, 2))[0] ?? "";
}
