// The access token lives in sessionStorage only: never in a URL, a cookie or localStorage.
const KEY = "rhizome.access_token";

export function readToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
