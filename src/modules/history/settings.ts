import { perDatabase } from "../../db/per-database";

export interface HistorySettings {
  /** Versions kept per note (NOTE_VERSIONS_MAX); the oldest go first; 0 keeps none. */
  maxVersions: number;
  /** Days a deleted note stays in the trash (TRASH_DAYS). */
  trashDays: number;
}

export const DEFAULT_HISTORY: HistorySettings = { maxVersions: 200, trashDays: 30 };

// Per database, as the server configured it: every writer of a note (requests, import jobs) reads the same.
const byDatabase = perDatabase<HistorySettings>(() => DEFAULT_HISTORY);
export const historySettings = byDatabase.get;
export const setHistorySettings = byDatabase.set;
