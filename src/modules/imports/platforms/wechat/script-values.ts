/**
 * Reads values out of a WeChat page's inline scripts without running them: a tiny scanner for
 * JS string literals and object/array literals, tolerant of whatever else the scripts contain.
 */

const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

/** A JS string literal starting at `start` (its quote), decoded; null when it never closes. */
export function readJsString(source: string, start: number): { value: string; end: number } | null {
  const quote = source[start];
  if (quote !== "'" && quote !== '"') return null;
  let value = "";
  for (let i = start + 1; i < source.length; i++) {
    const c = source[i]!;
    if (c === quote) return { value, end: i + 1 };
    if (c === "\n") return null;
    if (c !== "\\") {
      value += c;
      continue;
    }
    const next = source[i + 1];
    if (next === undefined) return null;
    const hex = (length: number) => {
      const digits = source.slice(i + 2, i + 2 + length);
      return /^[0-9a-fA-F]+$/.test(digits) && digits.length === length ? Number.parseInt(digits, 16) : null;
    };
    if (next === "x" && hex(2) !== null) {
      value += String.fromCharCode(hex(2)!);
      i += 3;
    } else if (next === "u" && source[i + 2] === "{") {
      const close = source.indexOf("}", i + 3);
      const code = close > 0 ? Number.parseInt(source.slice(i + 3, close), 16) : Number.NaN;
      if (Number.isFinite(code) && code <= 0x10ffff) {
        value += String.fromCodePoint(code);
        i = close;
      } else {
        value += "u";
        i += 1;
      }
    } else if (next === "u" && hex(4) !== null) {
      value += String.fromCharCode(hex(4)!);
      i += 5;
    } else if (next === "\n") {
      i += 1; // line continuation
    } else {
      value += SIMPLE_ESCAPES[next] ?? next;
      i += 1;
    }
  }
  return null;
}

/** WeChat's data literals are tens of kilobytes; a longer "literal" is a page trying to stall the scanner. */
const MAX_LITERAL_CHARS = 1_000_000;
/** Assignments tried per variable name, for the same reason. */
const MAX_ASSIGNMENTS = 32;

/** Index just past the literal (`{…}`, `[…]`) opening at `start`, skipping strings and comments; -1 if unbalanced. */
function literalEnd(source: string, start: number): number {
  let depth = 0;
  const limit = Math.min(source.length, start + MAX_LITERAL_CHARS);
  for (let i = start; i < limit; i++) {
    const c = source[i]!;
    if (c === "'" || c === '"') {
      const literal = readJsString(source, i);
      if (!literal) return -1;
      i = literal.end - 1;
    } else if (c === "/" && (source[i + 1] === "/" || source[i + 1] === "*")) {
      const close = source[i + 1] === "/" ? source.indexOf("\n", i) : source.indexOf("*/", i + 2) + 1;
      if (close <= 0) return -1;
      i = close;
    } else if (c === "{" || c === "[" || c === "(") {
      depth++;
    } else if (c === "}" || c === "]" || c === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

type JsValue = { kind: "string"; value: string } | { kind: "literal"; source: string };

/** The value starting at `start`: a string (bare, or wrapped in JsDecode/htmlDecode), digits, or a `{…}`/`[…]` literal. */
function readValue(source: string, start: number): JsValue | null {
  let i = start;
  while (/\s/.test(source[i] ?? "")) i++;
  const wrapped = /^(?:JsDecode|htmlDecode|decodeURIComponent)\s*\(\s*/.exec(source.slice(i, i + 40));
  if (wrapped) i += wrapped[0].length;
  const c = source[i];
  if (c === "'" || c === '"') {
    const literal = readJsString(source, i);
    return literal ? { kind: "string", value: literal.value } : null;
  }
  if (c === "{" || c === "[") {
    const end = literalEnd(source, i);
    return end > 0 ? { kind: "literal", source: source.slice(i, end) } : null;
  }
  const digits = /^-?\d+/.exec(source.slice(i, i + 32));
  return digits ? { kind: "string", value: digits[0] } : null;
}

/** The value of `key` among the direct properties of an object literal's source (`{…}`). */
export function propertyValue(objectSource: string, key: string): JsValue | null {
  let depth = 0;
  for (let i = 0; i < objectSource.length; i++) {
    const c = objectSource[i]!;
    if (c === "'" || c === '"') {
      const literal = readJsString(objectSource, i);
      if (!literal) return null;
      if (depth === 1 && literal.value === key) {
        const colon = /^\s*:/.exec(objectSource.slice(literal.end, literal.end + 16));
        if (colon) return readValue(objectSource, literal.end + colon[0].length);
      }
      i = literal.end - 1;
    } else if (c === "/" && (objectSource[i + 1] === "/" || objectSource[i + 1] === "*")) {
      const close =
        objectSource[i + 1] === "/" ? objectSource.indexOf("\n", i) : objectSource.indexOf("*/", i + 2) + 1;
      if (close <= 0) return null;
      i = close;
    } else if (c === "{" || c === "[" || c === "(") {
      depth++;
    } else if (c === "}" || c === "]" || c === ")") {
      depth--;
    } else if (depth === 1 && /[A-Za-z_$]/.test(c) && !/[\w$]/.test(objectSource[i - 1] ?? "")) {
      const name = /^[\w$]+/.exec(objectSource.slice(i, i + 64))![0];
      if (name === key) {
        const colon = /^\s*:/.exec(objectSource.slice(i + name.length, i + name.length + 16));
        if (colon) return readValue(objectSource, i + name.length + colon[0].length);
      }
      i += name.length - 1;
    }
  }
  return null;
}

/** A string-valued direct property of an object literal. */
export function propertyString(objectSource: string, key: string): string | undefined {
  const value = propertyValue(objectSource, key);
  return value?.kind === "string" ? value.value : undefined;
}

/** The direct `{…}` items of an array literal's source. */
export function arrayItems(arraySource: string): string[] {
  const items: string[] = [];
  for (let i = 1; i < arraySource.length - 1; i++) {
    const c = arraySource[i]!;
    if (c === "'" || c === '"') {
      const literal = readJsString(arraySource, i);
      if (!literal) break;
      i = literal.end - 1;
    } else if (c === "{" || c === "[") {
      const end = literalEnd(arraySource, i);
      if (end < 0) break;
      if (c === "{") items.push(arraySource.slice(i, end));
      i = end - 1;
    }
  }
  return items;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The value assigned to a variable in the scripts: `var name = …`, `window.name = …` or `name = …`. */
export function assignedValue(scripts: string, name: string): JsValue | null {
  const pattern = new RegExp(`(?<![\\w$.])(?:var\\s+|let\\s+|const\\s+|window\\.)?${escapeRegExp(name)}\\s*=(?!=)`, "g");
  let tried = 0;
  for (const match of scripts.matchAll(pattern)) {
    const value = readValue(scripts, match.index + match[0].length);
    if (value) return value;
    if (++tried === MAX_ASSIGNMENTS) break;
  }
  return null;
}

/** A string assigned to a variable, or undefined. */
export function assignedString(scripts: string, name: string): string | undefined {
  const value = assignedValue(scripts, name);
  return value?.kind === "string" ? value.value : undefined;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  middot: "·",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  ldquo: "“",
  rdquo: "”",
  lsquo: "‘",
  rsquo: "’",
};

/** Decodes the HTML entities WeChat leaves inside script strings (`&quot;`, `&#39;`, `&amp;amp;`…). */
export function decodeHtmlEntities(text: string): string {
  let decoded = text;
  // Twice, because values are sometimes escaped twice (`&amp;quot;`).
  for (let pass = 0; pass < 2; pass++) {
    decoded = decoded.replace(/&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|[a-zA-Z]{2,8});/g, (entity, body: string) => {
      if (body.startsWith("#")) {
        const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
    });
  }
  return decoded;
}

/** Unix seconds (as WeChat writes publish times) to ISO 8601, when plausible. */
export function isoFromUnixSeconds(value: string | undefined): string | undefined {
  if (!value || !/^\d{9,11}$/.test(value)) return undefined;
  const date = new Date(Number(value) * 1000);
  const year = date.getUTCFullYear();
  return year >= 2000 && year < 2100 ? date.toISOString() : undefined;
}
