import type { Credential } from "../tokens/credential";

/**
 * Who wrote a note's text, kept on the note (`notes.written_by`) and, once the text is replaced,
 * on its version. `key` names one client (a login session or a token), so its quick successive
 * edits make one version; imports and restores have none and never coalesce.
 */
export interface Writer {
  kind: "session" | "token" | "connector" | "import" | "restore";
  name: string | null;
  key: string | null;
}

export function writerOf(credential: Credential): Writer {
  if (credential.kind === "session") return { kind: "session", name: null, key: `session:${credential.session.id.slice(0, 16)}` };
  // Every OAuth grant (an agent's connector or the browser extension) is a connected app: `connector`.
  return { kind: credential.grant === "personal" ? "token" : "connector", name: credential.name, key: `token:${credential.tokenId}` };
}

export const importWriter = (platform: string): Writer => ({ kind: "import", name: platform, key: null });
export const restoreWriter: Writer = { kind: "restore", name: null, key: null };

/** The writer stored with a note; notes written before history are put down to their import, or to a session. */
export function storedWriter(writtenBy: string | null, sourcePlatform: string | null): Writer {
  if (writtenBy) return JSON.parse(writtenBy) as Writer;
  return sourcePlatform ? importWriter(sourcePlatform) : { kind: "session", name: null, key: null };
}
