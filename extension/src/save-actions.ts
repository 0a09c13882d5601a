import { imageNote, selectionNote } from "./clip-markdown";
import { followTask, notify, showBadge, type TaskRecord } from "./follow-task";
import { fetchImageThroughPage, readImageContext, readPage, readSelection } from "./page-reading";
import { callApi } from "./rhizome-api";

// The four saves. The toolbar button, the shortcut, the context menu and runtime messages all come
// here, and each answers `{task_id}`, `{note_id}` or `{error}`.

export type SaveRequest =
  | { type: "save-page"; tabId: number }
  | { type: "save-link"; url: string; tabId?: number }
  | { type: "save-selection"; tabId: number }
  | { type: "save-image"; url: string; tabId: number };

export type SaveAnswer = { task_id: number } | { note_id: number } | { error: string };

/** The server's limits: pasted content up to 10 MiB of UTF-8, files up to 10 MiB. */
const MAX_CONTENT_BYTES = 10 * 1024 * 1024;
const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

const isWebUrl = (url: string) => /^https?:\/\//i.test(url);

/** Parses a runtime message into a save, or null for anything else. */
export function saveRequestOf(message: unknown): SaveRequest | null {
  if (!message || typeof message !== "object") return null;
  const { type, tabId, url } = message as Record<string, unknown>;
  const tab = typeof tabId === "number" && Number.isInteger(tabId) ? tabId : undefined;
  const link = typeof url === "string" && url !== "" ? url : undefined;
  if (type === "save-page" && tab !== undefined) return { type, tabId: tab };
  if (type === "save-link" && link) return { type, url: link, tabId: tab };
  if (type === "save-selection" && tab !== undefined) return { type, tabId: tab };
  if (type === "save-image" && link && tab !== undefined) return { type, url: link, tabId: tab };
  return null;
}

/** Runs a save; a failure is shown on the badge and in a notification, and answered as `{error}`. */
export async function runSave(request: SaveRequest): Promise<SaveAnswer> {
  await showBadge(request.tabId, "working");
  try {
    const answer = await save(request);
    if ("note_id" in answer) {
      await showBadge(request.tabId, "done");
      await notify("Saved to Rhizome", request.type === "save-image" ? "The image is a note now. Click to open it." : "The selection is a note now. Click to open it.", answer.note_id);
    }
    return answer;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await showBadge(request.tabId, "failed");
    await notify("Rhizome could not save this", message);
    return { error: message };
  }
}

async function save(request: SaveRequest): Promise<{ task_id: number } | { note_id: number }> {
  switch (request.type) {
    case "save-page":
      return savePage(request.tabId);
    case "save-link":
      return saveLink(request.url, request.tabId);
    case "save-selection":
      return saveSelection(request.tabId);
    case "save-image":
      return saveImage(request.url, request.tabId);
  }
}

/** The page as shown (after its scripts ran, behind the person's login) goes as `content`; the server picks the platform from its URL. */
async function savePage(tabId: number): Promise<{ task_id: number }> {
  const page = await readPage(tabId);
  if (new TextEncoder().encode(page.html).length > MAX_CONTENT_BYTES) {
    throw new Error("This page is larger than the 10 MiB Rhizome takes; save its link instead");
  }
  const task = await callApi<TaskRecord>("POST", "/api/tasks", {
    json: { platform: "auto", content: page.html, ...(isWebUrl(page.url) && { url: page.url }) },
  });
  void followTask(task.id, tabId, page.title ? `“${page.title}”` : "The page");
  return { task_id: task.id };
}

async function saveLink(url: string, tabId: number | undefined): Promise<{ task_id: number }> {
  if (!isWebUrl(url)) throw new Error("Only http and https links can be saved");
  const task = await callApi<TaskRecord>("POST", "/api/tasks", { json: { url } });
  void followTask(task.id, tabId, "The link");
  return { task_id: task.id };
}

async function saveSelection(tabId: number): Promise<{ note_id: number }> {
  const selection = await readSelection(tabId);
  const note = await callApi<{ id: number }>("POST", "/api/notes", { json: selectionNote(selection) });
  return { note_id: note.id };
}

/** The image as this browser gets it — with the page's cookies — stored as a file, in a note with the page's link. */
async function saveImage(src: string, tabId: number): Promise<{ note_id: number }> {
  const context = await readImageContext(tabId, src);
  const image = await downloadImage(src, tabId);
  if (image.size > MAX_IMAGE_BYTES) throw new Error("This image is larger than the 10 MiB Rhizome stores");
  const file = await callApi<{ id: number; url: string }>("POST", "/api/files", { bytes: image });
  const note = await callApi<{ id: number }>("POST", "/api/notes", {
    json: imageNote({ fileUrl: file.url, alt: context.alt, title: context.title, url: context.url, imageUrl: src }),
  });
  return { note_id: note.id };
}

/**
 * The extension's own request carries the browser's cookies for the image's site (its host access
 * covers every site); where that is refused, the page fetches it (same-origin and `blob:` images).
 */
async function downloadImage(src: string, tabId: number): Promise<Blob> {
  let failure = "";
  if (!src.startsWith("blob:")) {
    try {
      const response = await fetch(src, { credentials: "include" });
      if (response.ok) return await response.blob();
      failure = `the image answered ${response.status}`;
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
  }
  const fetched = await fetchImageThroughPage(tabId, src);
  if ("error" in fetched) throw new Error(`Could not download the image: ${failure || fetched.error}`);
  const bytes = Uint8Array.from(atob(fetched.base64), (character) => character.charCodeAt(0));
  return new Blob([bytes], { type: fetched.type });
}
