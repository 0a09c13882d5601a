import { forgetToken, readToken } from "./session";

/** An answer that was not 2xx, with the contract's error message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds a 429 or 503 asks to wait (its Retry-After), when it says. */
    readonly retryAfter: number | null = null,
    /** What a 400 found wrong with the input, field by field (the error body's `issues`). */
    readonly issues: InputIssue[] = [],
  ) {
    super(message);
  }
}

export interface InputIssue {
  path: (string | number)[];
  message: string;
}

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, string>;
  /** A document sent as it is (an OPML file), with its type. */
  text?: { body: string; type: string };
  /** A token other than the session's (the pending token of a second factor). */
  token?: string;
  /** The call checks a password or code sent in its body: a 401 is about those, not the end of this login. */
  checksPassword?: boolean;
}

type UnauthorizedListener = () => void;
let onUnauthorized: UnauthorizedListener = () => {};

/** What happens when a call with the session's token answers 401: the page goes back to its login form. */
export function whenUnauthorized(listener: UnauthorizedListener): void {
  onUnauthorized = listener;
}

/** One call to this service's API; the token goes in the Authorization header, never the URL. */
export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = options.token ?? readToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  } else if (options.text) {
    headers["content-type"] = options.text.type;
    body = options.text.body;
  }
  const response = await fetch(path, { method, headers, body, credentials: "omit", cache: "no-store" });
  const text = await response.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!response.ok) {
    if (response.status === 401 && !options.token && !options.checksPassword && token) {
      forgetToken();
      onUnauthorized();
    }
    const { message, issues } = (parsed ?? {}) as { message?: unknown; issues?: unknown };
    const wait = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
    throw new ApiError(response.status, typeof message === "string" ? message : `${response.status} ${response.statusText}`, Number.isFinite(wait) ? wait : null, inputIssues(issues));
  }
  return parsed as T;
}

export const get = <T>(path: string) => request<T>("GET", path);

/** A stored file's bytes (GET /api/files/{id}), fetched with the token: an <img> could not send it. */
export async function getBlob(path: string): Promise<Blob> {
  const token = readToken();
  const response = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: "omit" });
  if (!response.ok) throw new ApiError(response.status, `${response.status} ${response.statusText}`);
  return response.blob();
}
export const post = <T>(path: string, json: unknown = {}) => request<T>("POST", path, { json });

/** A raw-body upload (a file, a recording, a document), typed by the file itself unless `type` says. */
export async function upload<T>(path: string, file: File, type = file.type): Promise<T> {
  const token = readToken();
  const response = await fetch(path, { method: "POST", headers: { "content-type": type || "application/octet-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: file, credentials: "omit" });
  const answer = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
  if (!response.ok) throw new ApiError(response.status, answer?.message ?? `${response.status} ${response.statusText}`);
  return answer as T;
}
export const patch = <T>(path: string, json: unknown) => request<T>("PATCH", path, { json });
export const del = (path: string) => request<void>("DELETE", path);

function inputIssues(issues: unknown): InputIssue[] {
  if (!Array.isArray(issues)) return [];
  return issues.filter((issue): issue is InputIssue => typeof issue?.message === "string" && Array.isArray(issue.path));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
