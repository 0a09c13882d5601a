/** What each scope lets an access token do (the contract's list; shown in the OpenAPI document and the README). */
export const SCOPES = {
  "notes:read": "List, read, search and export notes; read stored files",
  "notes:write": "Create, update and delete notes; upload files",
  imports: "Start imports (pages, archives, recordings and documents) and follow their tasks",
  "graph:read": "Read the knowledge graph, its status and its builds",
  "graph:write": "Build the knowledge graph and curate its nodes",
  ask: "Ask questions of your notes (may spend LLM tokens)",
  webhooks: "Manage webhooks",
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as [Scope, ...Scope[]];

/**
 * What an operation asks of its caller's credential: a scope (a login session, or an access token
 * holding that scope), `any` valid credential, or a login `session` (token management, TOTP,
 * logout: a program's token must not mint or manage credentials).
 */
export type Access = Scope | "any" | "session";
