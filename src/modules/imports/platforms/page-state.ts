/**
 * Reads the state object a server-rendered page assigns in an inline script, such as
 * `window.__INITIAL_STATE__={…}` (Xiaohongshu, Bilibili) or `window._ROUTER_DATA = {…}` (Douyin).
 * Page scripts are never evaluated: the value is cut out by bracket matching and parsed as JSON.
 */

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;

export interface InlineScript {
  attributes: string;
  text: string;
}

/** The page's scripts in document order (external ones have empty text). */
export function inlineScripts(html: string): InlineScript[] {
  return Array.from(html.matchAll(INLINE_SCRIPT), (match) => ({
    attributes: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

/**
 * The value that `name` (e.g. `window.__INITIAL_STATE__`) is assigned by the last script starting
 * with that assignment whose value parses, falling back to scripts containing it anywhere.
 * Undefined when no script assigns it a parseable value (a truncated save, a changed format).
 */
export function readScriptAssignment(html: string, name: string): unknown {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const atStart = new RegExp(`^\\s*${escaped}\\s*=\\s*`);
  const anywhere = new RegExp(`(?:^|[;\\s])${escaped}\\s*=\\s*`);
  const scripts = inlineScripts(html).map((script) => script.text);

  for (const pattern of [atStart, anywhere]) {
    for (let index = scripts.length - 1; index >= 0; index -= 1) {
      const text = scripts[index] ?? "";
      const match = pattern.exec(text);
      if (!match) continue;
      const valueText = cutJsonValue(text, match.index + match[0].length);
      if (valueText === undefined) continue;
      try {
        return parseLooseJson(valueText);
      } catch {
        // A script that only mentions the name (or a changed format): look at earlier ones.
      }
    }
  }
  return undefined;
}

/**
 * The object or array literal starting at `start`, found by bracket matching outside strings, so
 * whatever the script does after the assignment (`;(function(){…})()`) is left out.
 */
export function cutJsonValue(text: string, start: number): string | undefined {
  const opener = text[start];
  if (opener !== "{" && opener !== "[") return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (quote) {
      if (char === "\\") index += 1;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return text.slice(start, index + 1);
    }
  }
  return undefined;
}

/**
 * JSON.parse for page state serialised with bare `undefined` values: those become `null`, while
 * the word inside string literals (a note that talks about `undefined`) is left alone.
 */
export function parseLooseJson(text: string): unknown {
  return JSON.parse(replaceBareUndefined(text));
}

function replaceBareUndefined(text: string): string {
  const word = "undefined";
  const parts: string[] = [];
  let copiedUpTo = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      continue;
    }
    if (
      char === "u" &&
      text.startsWith(word, index) &&
      !isIdentifierChar(text[index - 1]) &&
      !isIdentifierChar(text[index + word.length])
    ) {
      parts.push(text.slice(copiedUpTo, index), "null");
      index += word.length - 1;
      copiedUpTo = index + 1;
    }
  }
  parts.push(text.slice(copiedUpTo));
  return parts.join("");
}

function isIdentifierChar(char: string | undefined): boolean {
  return char !== undefined && /[\w$]/.test(char);
}
