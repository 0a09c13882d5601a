// While the page is idle, the text of listed notes this device does not hold yet is fetched, a note
// at a time, so a note seen in `Notes` can be read offline too (the kept 200 at most). It stops at
// the first failure and when another account logs in.
import { get } from "../api";
import type { Note } from "../types";
import { offlineAccount } from "./account";
import { KEPT_NOTES, notesWithoutText, rememberNote } from "./seen-notes";

const PER_VISIT = 50;
let running = false;

export function keepListedTexts(): void {
  const account = offlineAccount();
  if (running || account === null || !navigator.onLine) return;
  running = true;
  void (async () => {
    try {
      const ids = await notesWithoutText(account, Math.min(PER_VISIT, KEPT_NOTES));
      for (const id of ids) {
        await idle();
        if (offlineAccount() !== account) return;
        const note = await get<Note>(`/api/notes/${id}`);
        await rememberNote(account, note);
      }
    } catch {
      // Offline again, or the note is gone: the next visit tries again.
    } finally {
      running = false;
    }
  })();
}

function idle(): Promise<void> {
  return new Promise((resolve) => ("requestIdleCallback" in window ? requestIdleCallback(() => resolve(), { timeout: 3000 }) : setTimeout(resolve, 200)));
}
