// Whose notes the page keeps and reads offline: the logged-in account's id, or null.
import { ApiError } from "../api";

let accountId: number | null = null;

export function setOfflineAccount(id: number | null): void {
  accountId = id;
}

export function offlineAccount(): number | null {
  return accountId;
}

/** A call that never reached the server (offline, or the server gone), as opposed to its refusal. */
export function unreachable(failure: unknown): boolean {
  return !(failure instanceof ApiError) || failure.status === 0;
}
