// Reading notes with a fallback: the server's answer when it can be reached (and kept on this device
// as it goes), else the copy this device kept.
import { ApiError, get } from "../api";
import type { Note, NotePage } from "../types";
import { offlineAccount, unreachable } from "./account";
import { forgetNote, rememberListed, rememberNote, seenNote, seenNotes } from "./seen-notes";

export async function readNote(id: number): Promise<{ note: Note; kept: boolean }> {
  const account = offlineAccount();
  try {
    const note = await get<Note>(`/api/notes/${id}`);
    if (account !== null) void rememberNote(account, note);
    return { note, kept: false };
  } catch (failure) {
    if (account === null) throw failure;
    if (!unreachable(failure)) {
      if (failure instanceof ApiError && failure.status === 404) void forgetNote(account, id);
      throw failure;
    }
    const seen = await seenNote(account, id);
    if (seen?.content == null) throw new ApiError(0, "You are offline, and this note's text is not kept on this device.");
    const { userId: _user, excerpt: _excerpt, ...note } = seen;
    return { note: { ...note, content: seen.content, source: seen.source as Note["source"] }, kept: true };
  }
}

/** A page of `Notes`; offline, every kept note matching the filter in one page. */
export async function readNotePage(query: URLSearchParams, filter: { tag: string | null; q: string }): Promise<NotePage & { kept: boolean }> {
  const account = offlineAccount();
  try {
    const page = await get<NotePage>(`/api/notes?${query}`);
    if (account !== null && !filter.q) void rememberListed(account, page.items);
    return { ...page, kept: false };
  } catch (failure) {
    if (account === null || !unreachable(failure)) throw failure;
    const items = await seenNotes(account, filter);
    return { items, total: items.length, page: 1, size: items.length, pages: items.length ? 1 : 0, kept: true };
  }
}
