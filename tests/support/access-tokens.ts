import { expect } from "bun:test";
import type { Api } from "./api";

/** Creates an access token through the API with a login session's `api`; returns the `rhz_…` secret. */
export async function createAccessToken(api: Api, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const created = await api.post("/api/auth/tokens", { name: `test ${scopes.join(" ")}`.slice(0, 64), scopes, ...extra });
  expect(created.status).toBe(201);
  return created.body.token;
}

export const ALL_SCOPES = ["notes:read", "notes:write", "imports", "graph:read", "graph:write", "ask", "webhooks"];
