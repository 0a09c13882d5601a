import { expect } from "bun:test";
import { uniqueName } from "./unique-name";

/** A thin REST client for tests: JSON in, status + parsed body out. */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  withToken(token: string | undefined): Api {
    return new Api(this.baseUrl, token);
  }

  async request(method: string, path: string, options: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (this.token) headers.authorization ??= `Bearer ${this.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, body: json, text };
  }

  get = (path: string, headers?: Record<string, string>) => this.request("GET", path, { headers });
  post = (path: string, json?: unknown) => this.request("POST", path, { json });
  put = (path: string, json?: unknown) => this.request("PUT", path, { json });
  delete = (path: string) => this.request("DELETE", path);

  /** Registers and logs in a fresh user; returns an Api carrying its token. */
  async newUser(prefix = "user", password = "password-123"): Promise<{ api: Api; username: string; password: string; id: number }> {
    const username = uniqueName(prefix);
    const registered = await this.post("/api/auth/register", { username, password });
    expect(registered.status).toBe(201);
    const token = await this.login(username, password);
    return { api: this.withToken(token), username, password, id: registered.body.id };
  }

  async login(username: string, password: string, extra: Record<string, string> = {}): Promise<string> {
    const response = await this.loginForm({ username, password, ...extra });
    expect(response.status).toBe(200);
    return response.body.access_token;
  }

  loginForm(fields: Record<string, string>, contentType = "application/x-www-form-urlencoded") {
    return this.request("POST", "/api/auth/login", {
      body: new URLSearchParams(fields).toString(),
      headers: { "content-type": contentType },
    });
  }
}

/** Asserts the contract's error body: `{code, message, issues?}` and nothing else (no stack). */
export function expectError(response: { status: number; body: any; text: string }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body?.code).toBe(code);
  expect(typeof response.body?.message).toBe("string");
  expect(Object.keys(response.body).every((key) => ["code", "message", "issues"].includes(key))).toBe(true);
  expect(response.text).not.toMatch(/stack|at \/|node_modules|\.ts:\d+|SQLITE|sqlite/i);
}

/** A 401 with the contract's body and a Bearer challenge. */
export function expectUnauthorized(response: { status: number; body: any; text: string; headers: Headers }) {
  expectError(response, 401, "UNAUTHORIZED");
  expect(response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
}
