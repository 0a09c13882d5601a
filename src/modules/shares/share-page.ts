import { escapeHtml } from "../../text/html-entities";
import { createHash } from "node:crypto";

/**
 * The share page's look: one readable column from a phone's 390 px up, the system's fonts, light
 * and dark by the reader's setting. Inline, and allowed by its hash alone (no other style, no script).
 */
const STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fdfdfc;--line:#d8dee4;--code:#f3f4f6;--link:#0b57d0;--mark:#fff3b0}
@media (prefers-color-scheme:dark){:root{--fg:#e6e6e3;--muted:#9ba3ab;--bg:#141517;--line:#30363d;--code:#1f2226;--link:#8ab4f8;--mark:#5c4a00}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.7 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","PingFang SC","Hiragino Sans","Microsoft YaHei",sans-serif;overflow-wrap:break-word}
main{max-width:42rem;margin:0 auto;padding:2.5rem 1.25rem 4rem}
header{margin-bottom:2rem;padding-bottom:1rem;border-bottom:1px solid var(--line)}
header h1{font-size:clamp(1.6rem,5vw,2.2rem);line-height:1.25;margin:0 0 .4rem;letter-spacing:-.01em}
header p{margin:0;color:var(--muted);font-size:.875rem}
article h1,article h2,article h3,article h4{line-height:1.3;margin:2rem 0 .75rem}
article h1{font-size:1.6rem}article h2{font-size:1.35rem}article h3{font-size:1.15rem}
article p,article ul,article ol,article blockquote,article pre,article table,article figure,article details{margin:0 0 1.1rem}
article ul,article ol{padding-left:1.4rem}
article li{margin:.25rem 0}
article li>ul,article li>ol{margin:.25rem 0}
a{color:var(--link);text-underline-offset:.15em}
img{max-width:100%;height:auto;border-radius:4px}
blockquote{margin-left:0;padding:.1rem 0 .1rem 1rem;border-left:3px solid var(--line);color:var(--muted)}
blockquote>:last-child,li>p:last-child{margin-bottom:0}
li:has(>.task){list-style:none;margin-left:-1.1rem}
code,kbd,samp{font:.9em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:.1em .3em}
pre{background:var(--code);padding:.9rem 1rem;border-radius:6px;overflow-x:auto}
pre code{padding:0;background:none;font-size:.875rem}
table{display:block;max-width:100%;overflow-x:auto;border-collapse:collapse}
th,td{border:1px solid var(--line);padding:.35rem .7rem;text-align:left}
th{background:var(--code)}
hr{border:0;border-top:1px solid var(--line);margin:2rem 0}
mark{background:var(--mark);color:inherit}
.task{font-family:ui-monospace,monospace}
footer{margin-top:3rem;color:var(--muted);font-size:.8125rem}
.missing{text-align:center;padding-top:20vh}
.missing h1{font-size:1.6rem;line-height:1.3}
`;

const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/** Nothing runs, nothing is framed or submitted; pictures come from here or from https sites the note links. */
export const SHARE_PAGE_CSP = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self' https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A shared note: its title, when it last changed, and its sanitised body (from renderSharedMarkdown). */
export function sharePage(note: { title: string; updatedAt: number }, bodyHtml: string): string {
  const updated = new Date(note.updatedAt).toISOString();
  const title = note.title || "Untitled note";
  return page(
    title,
    `<main>
<header><h1>${escapeHtml(title)}</h1><p>Updated <time datetime="${updated}">${updated.slice(0, 10)}</time></p></header>
<article>
${bodyHtml}
</article>
<footer>Shared from Rhizome, read-only.</footer>
</main>`,
  );
}

/** The one answer to every link that does not work; it says nothing of why, nor of whose. */
export function missingSharePage(): string {
  return page("Not found", `<main class="missing"><h1>This link does not work</h1><p>It may have expired or been revoked, or the note was deleted.</p></main>`);
}
