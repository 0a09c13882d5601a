// The notes the extension writes itself (a selection, an image): pure Markdown, no page access.

const MAX_TITLE = 500;

/** `[text](url)` that survives brackets in the title and parentheses or spaces in the URL. */
export function markdownLink(text: string, url: string): string {
  const label = (text.trim() || url).replace(/\s+/g, " ").replace(/([\\[\]])/g, "\\$1");
  const target = url.replace(/[()<>\x00-\x20]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
  return `[${label}](${target})`;
}

/** The selection as a Markdown quote (every line, blank ones too, kept inside it). */
export function markdownQuote(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .trim()
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line.trimEnd()}`))
    .join("\n");
}

/** The credit line under a clip: `— [<page title>](<page URL>)`. */
export const creditLine = (page: { title: string; url: string }) => `— ${markdownLink(page.title, page.url)}`;

/** A title within the notes' rules: the page's title, else the first words of the clip. */
export function clipTitle(pageTitle: string, fallback: string): string {
  const title = pageTitle.replace(/\s+/g, " ").trim() || fallback.replace(/\s+/g, " ").trim() || "Clipped from the web";
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

export function selectionNote(selection: { text: string; title: string; url: string }) {
  return {
    title: clipTitle(selection.title, selection.text.slice(0, 80)),
    content: `${markdownQuote(selection.text)}\n\n${creditLine(selection)}\n`,
    tags: ["clipped"],
  };
}

export function imageNote(image: { fileUrl: string; alt: string; title: string; url: string; imageUrl: string }) {
  const alt = image.alt.replace(/\s+/g, " ").replace(/([\\[\]])/g, "\\$1").trim();
  return {
    title: clipTitle(image.title, image.alt || fileNameOf(image.imageUrl)),
    content: `![${alt}](${image.fileUrl})\n\n${creditLine(image)}\n`,
    tags: ["clipped"],
  };
}

function fileNameOf(imageUrl: string): string {
  try {
    const url = new URL(imageUrl);
    return url.protocol === "http:" || url.protocol === "https:" ? decodeURIComponent(url.pathname.split("/").pop() ?? "") : "";
  } catch {
    return "";
  }
}
