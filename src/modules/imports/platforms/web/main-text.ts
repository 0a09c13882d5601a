/**
 * A page's main content when Readability finds too little to call an article (its thresholds are
 * tuned for long reads): a page whose whole text is one short paragraph is still an article.
 */

/** Never the article, wherever they sit. */
const CHROME = "nav, aside, form, dialog, [role=navigation], [role=complementary], [role=search], [role=dialog]";
/** The page's own header and footer; an `<article>`'s header holds its title and stays. */
const PAGE_CHROME = "header, footer, [role=banner], [role=contentinfo]";
/** Text here is not article text: headings, links and controls alone do not make an article. */
const NOT_TEXT = "h1, h2, h3, h4, h5, h6, a, script, style, noscript, template, button, label, select, textarea, title";

/**
 * The first `<article>`, else `<main>` (or `role=main`), else `<body>`, without navigation, forms
 * and page chrome, its links and images resolved against `baseUrl`; null when it holds no words
 * outside headings, links and controls (a login form, a link list, an empty shell).
 */
export function mainContent(document: Document, baseUrl: string | undefined): Element | null {
  const container = document.querySelector("article") ?? document.querySelector("main, [role=main]") ?? document.body;
  if (!container) return null;
  const content = container.cloneNode(true) as Element;
  const chrome = container.nodeName === "ARTICLE" ? CHROME : `${CHROME}, ${PAGE_CHROME}`;
  for (const element of Array.from(content.querySelectorAll(chrome))) element.remove();

  const probe = content.cloneNode(true) as Element;
  for (const element of Array.from(probe.querySelectorAll(NOT_TEXT))) element.remove();
  if (!/[\p{L}\p{N}]/u.test(probe.textContent ?? "")) return null;

  resolveUrls(content, baseUrl);
  return content;
}

/** Relative `href`/`src`/`data-src` made absolute, as Readability does for the articles it finds. */
function resolveUrls(root: Element, baseUrl: string | undefined): void {
  if (!baseUrl) return;
  for (const [selector, attribute] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
    ["img[data-src]", "data-src"],
  ] as const) {
    for (const element of Array.from(root.querySelectorAll(selector))) {
      const value = element.getAttribute(attribute)?.trim();
      if (!value || value.startsWith("#")) continue;
      try {
        element.setAttribute(attribute, new URL(value, baseUrl).href);
      } catch {
        // Unresolvable: htmlToMarkdown drops it.
      }
    }
  }
}
