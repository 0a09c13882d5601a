// The HTML of the two MCP Apps, built once per process on the first read: each entry under
// src/viewer/apps/ bundled by Bun.build (every library inlined, as the page's own bundle is) and
// written into one document with its styles, so that the host's frame loads nothing from anywhere.
import fs from "node:fs/promises";
import path from "node:path";
import { tokenizer, tokTypes, type Token } from "acorn";

export type AppName = "note" | "graph";

const APPS_DIR = path.join(import.meta.dir, "../../viewer/apps");
const ENTRIES: Record<AppName, string> = { note: "note-app.ts", graph: "graph-app.ts" };
const TITLES: Record<AppName, string> = { note: "Rhizome: a note", graph: "Rhizome: concepts" };

let built: Promise<Map<AppName, string>> | undefined;

/** The app's HTML document; the first call builds both apps (about a second), later calls share it. */
export function appHtml(name: AppName): Promise<string> {
  built ??= buildApps().catch((error: unknown) => {
    built = undefined; // a failed build is retried by the next read, not kept
    throw error;
  });
  return built.then((documents) => documents.get(name)!);
}

async function buildApps(): Promise<Map<AppName, string>> {
  const names = Object.keys(ENTRIES) as AppName[];
  const result = await Bun.build({
    entrypoints: names.map((name) => path.join(APPS_DIR, ENTRIES[name])),
    target: "browser",
    format: "esm",
    minify: true,
    splitting: false,
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "the MCP Apps did not build");
  const css = await fs.readFile(path.join(APPS_DIR, "apps.css"), "utf8");
  const documents = new Map<AppName, string>();
  for (const name of names) {
    const stem = path.basename(ENTRIES[name], ".ts");
    const output = result.outputs.find((file) => file.kind === "entry-point" && path.basename(file.path, ".js") === stem);
    if (!output) throw new Error(`the MCP Apps' build has no output for ${ENTRIES[name]}`);
    documents.set(name, htmlDocument(TITLES[name], css, inlineSafe(await output.text())));
  }
  return documents;
}

function htmlDocument(title: string, css: string, script: string): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${title}</title>`,
    `<style>${css}</style>`,
    "</head>",
    "<body>",
    `<script type="module">${script}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}

const UNSAFE = /https?:\/\/|<\/script|<!--/i;
/** Words after which a template literal starts an expression (is not tagged by the word). */
const KEYWORDS_BEFORE_EXPRESSION = new Set(["return", "typeof", "void", "delete", "throw", "case", "in", "of", "instanceof", "new", "yield", "await", "else", "do"]);

/**
 * The bundle made safe to sit inside <script> and to name no address: in its string, template and
 * regular-expression literals (the only places they occur in minified code), `</script` and `<!--`
 * become `\x3C/script` and `\x3C!--`, and `http://` (a JSON Schema's `$schema`, a library's "please
 * report this to" line) becomes `http:\/\/` — the same values, spelt so that no HTML parser ends the
 * script early and no address of another origin appears in the document. One pass of acorn's
 * tokenizer (no syntax tree: the API process has little memory to spare); whatever it cannot
 * rewrite without changing a value (a tagged template's raw text, a comment) is refused.
 */
export function inlineSafe(script: string): string {
  const literals: { start: number; end: number }[] = [];
  // Where each open template literal began (its backquote), innermost last.
  const templates: number[] = [];
  let previous: Token | undefined;
  for (const token of tokenizer(script, { ecmaVersion: "latest", sourceType: "module" })) {
    if (token.type === tokTypes.backQuote) {
      // A template's closing backquote always follows one of its text chunks.
      if (previous?.type === tokTypes.template) templates.pop();
      else templates.push(token.start);
    } else if (token.type === tokTypes.string || token.type === tokTypes.regexp || token.type === tokTypes.template) {
      const raw = script.slice(token.start, token.end);
      if (UNSAFE.test(raw)) {
        if (token.type === tokTypes.template && mayBeTagged(script, templates.at(-1)!)) {
          throw new Error(`the MCP App's script has a tagged template naming an address or closing a script: ${raw.slice(0, 80)}`);
        }
        literals.push({ start: token.start, end: token.end });
      }
    }
    previous = token;
  }
  let safe = "";
  let at = 0;
  for (const { start, end } of literals) {
    safe += script.slice(at, start) + script.slice(start, end).replace(/(https?:)\/\//gi, "$1\\/\\/").replace(/<(\/script|!--)/gi, "\\x3C$1");
    at = end;
  }
  safe += script.slice(at);
  const left = UNSAFE.exec(safe);
  if (left) throw new Error(`the MCP App's script names an address or closes a script outside a literal: …${safe.slice(Math.max(0, left.index - 60), left.index + 60)}…`);
  return safe;
}

/** True unless what precedes the backquote at `start` plainly starts an expression (a tag would be a name, `)`, `]`, `}` or another template). */
function mayBeTagged(script: string, start: number): boolean {
  const before = script.slice(Math.max(0, start - 64), start).trimEnd();
  const word = /[\p{ID_Continue}$]+$/u.exec(before)?.[0];
  if (word) return !KEYWORDS_BEFORE_EXPRESSION.has(word);
  return /[)\]}`]$/.test(before);
}
