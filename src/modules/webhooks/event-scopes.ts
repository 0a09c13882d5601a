import type { EventType } from "../events/change";
import { authorize, type Credential } from "../tokens/credential";
import type { Scope } from "../tokens/scopes";

type EventFamily = EventType extends `${infer Family}.${string}` ? Family : never;

/** What an event's data lets its receiver read (a note's title, tags and source; a task; a build), so what reading it takes; a new family must say. */
const FAMILY_SCOPES: Record<EventFamily, Scope> = { note: "notes:read", task: "imports", graph: "graph:read" };

/** The scope a credential needs, beside `webhooks`, to have this event sent to a URL of its choice. */
export function scopeOfEvent(type: EventType): Scope {
  return FAMILY_SCOPES[type.slice(0, type.indexOf(".")) as EventFamily];
}

/**
 * A webhook carries only what its creator may read: a token may subscribe to an event family only
 * with that family's read scope (a login session has them all). Throws MissingScopeError naming it.
 */
export function authorizeEvents(credential: Credential, events: readonly EventType[]): void {
  for (const scope of new Set(events.map(scopeOfEvent))) authorize(credential, scope);
}

/** The access token a webhook is bound to when this credential sets it up; null for a login session. */
export function settingUpToken(credential: Credential): number | null {
  return credential.kind === "access_token" ? credential.tokenId : null;
}
