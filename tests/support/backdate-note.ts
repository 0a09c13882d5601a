import { expect } from "bun:test";
import type { TestServer } from "./server";

/**
 * Moves a note's updated_at an hour back, behind the API (with the time its import source recorded
 * for it, if any, so it still reads as not edited since): the next change to it is then later
 * whatever the clock reads, where a change within the same millisecond would leave it equal.
 */
export async function backdateNote(server: TestServer, noteId: number): Promise<void> {
  const client = server.openNotesClient();
  try {
    const result = await client.execute({ sql: "update notes set updated_at = updated_at - 3600000 where id = ?", args: [noteId] });
    expect(result.rowsAffected).toBe(1);
    await client.execute({ sql: "update import_sources set note_updated_at = note_updated_at - 3600000 where note_id = ?", args: [noteId] });
  } finally {
    client.close();
  }
}
