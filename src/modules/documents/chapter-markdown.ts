import { htmlToMarkdown, parseHtmlDocument } from "../imports/html-to-markdown";
import { importedTitle } from "../notes/note-text";

/** Keeps a picture a chapter shows (`src` as the chapter writes it): its `/api/files/{id}` address, or null. */
export type ChapterPictures = (source: string) => Promise<string | null>;

// Kept pictures are named under this origin while the HTML becomes Markdown (which takes only http(s) pictures), then pointed home.
const PICTURES_AT = "https://document.invalid";

/**
 * A chapter's (X)HTML as a `## <title>` section: the title is `label` (the table of contents'),
 * else the chapter's first heading (then left out of the text), else its `<title>`, else
 * "Chapter N"; headings inside move two levels down, under it; pictures are kept through
 * `pictures` (or dropped); tables become pipe tables. Null for a chapter with neither title nor text.
 */
export async function chapterMarkdown(html: string, options: { label?: string; pictures: ChapterPictures; number: number }): Promise<string | null> {
  const document = parseHtmlDocument(html);
  const body = document.body;
  if (!body) return null;
  // A cover drawn as an SVG <image> is a picture like any other.
  for (const image of Array.from(body.querySelectorAll("svg image"))) {
    const source = image.getAttribute("xlink:href") ?? image.getAttribute("href");
    const svg = image.closest("svg");
    if (!source || !svg) continue;
    const img = document.createElement("img");
    img.setAttribute("src", source);
    svg.replaceWith(img);
  }
  for (const img of Array.from(body.querySelectorAll("img"))) {
    const url = await options.pictures(img.getAttribute("src") ?? "");
    if (url) img.setAttribute("src", `${PICTURES_AT}${url}`);
    else img.remove();
  }
  const firstHeading = body.querySelector("h1, h2, h3, h4, h5, h6");
  const heading = importedTitle(firstHeading?.textContent ?? "");
  const title = options.label || heading || importedTitle(document.querySelector("title")?.textContent ?? "") || `Chapter ${options.number}`;
  if (firstHeading && heading === title) firstHeading.remove();
  for (const element of Array.from(body.querySelectorAll("h1, h2, h3, h4, h5, h6"))) {
    const level = Math.min(6, Number(element.nodeName[1]) + 2);
    const moved = document.createElement(`h${level}`);
    moved.append(...Array.from(element.childNodes));
    element.replaceWith(moved);
  }
  const markdown = htmlToMarkdown(body, { tables: true }).replaceAll(`](${PICTURES_AT}/api/files/`, "](/api/files/");
  if (!markdown && !options.label && !heading) return null;
  return markdown ? `## ${title}\n\n${markdown}` : `## ${title}`;
}
