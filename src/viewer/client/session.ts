// The login's token: in sessionStorage (this tab, until it closes) or, when the person ticks `Keep me
// logged in on this device`, in IndexedDB, so the installed app, a share and a reopened tab need no
// new login. Never in a URL, a cookie or localStorage. The page reads it from memory.
import { forgetAllNotes } from "./offline/seen-notes";
import { appDatabase } from "./offline/store";
import type { User } from "./types";

const KEY = "rhizome.access_token";
let token: string | null = sessionStorage.getItem(KEY);

export function readToken(): string | null {
  return token;
}

/** Before the page asks anything: the login kept on this device, when this tab has none of its own. */
export async function restoreKeptLogin(): Promise<void> {
  if (token) return;
  try {
    const kept = await (await appDatabase()).get("kept", "login");
    if (kept && !token) token = kept.token;
  } catch {
    // No IndexedDB (a private window may refuse it): the person logs in.
  }
}

export function saveToken(value: string, keep = false): void {
  token = value;
  if (keep) {
    sessionStorage.removeItem(KEY);
    void appDatabase().then((db) => db.put("kept", { token: value }, "login")).catch(() => sessionStorage.setItem(KEY, value));
  } else sessionStorage.setItem(KEY, value);
}

/** Logging out, or a token the server no longer takes: nothing of it stays on the device. */
export function forgetToken(): void {
  token = null;
  sessionStorage.removeItem(KEY);
  void appDatabase()
    .then(async (db) => {
      await db.delete("kept", "login");
      await db.delete("kept", "user");
    })
    .catch(() => {});
  void forgetAllNotes();
}

/** The account last seen with this login, for opening the app without a network. */
export async function rememberUser(user: User): Promise<void> {
  try {
    if (token) await (await appDatabase()).put("kept", { token: await fingerprint(token), user }, "user");
  } catch {
    // Offline reading is a convenience; the app works without it.
  }
}

export async function rememberedUser(): Promise<User | null> {
  try {
    const kept = await (await appDatabase()).get("kept", "user");
    return kept?.user && token && kept.token === (await fingerprint(token)) ? kept.user : null;
  } catch {
    return null;
  }
}

/** The token's SHA-256: what ties the remembered account to this login, without the token itself. */
async function fingerprint(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
