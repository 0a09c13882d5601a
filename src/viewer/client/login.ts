// The login form: username and password (POST /api/auth/login, the OAuth2 password form), then the
// `Code` field when the account asks for a second factor (POST /api/auth/totp/verify with the
// pending token, which is kept in memory only).
import { ApiError, request } from "./api";
import { byId } from "./dom";
import { saveToken } from "./session";
import type { TokenAnswer } from "./types";

export function setUpLogin(onLoggedIn: () => void): { reset(): void } {
  const form = byId<HTMLFormElement>("login-form");
  const username = byId<HTMLInputElement>("username");
  const password = byId<HTMLInputElement>("password");
  const codeField = byId("code-field");
  const code = byId<HTMLInputElement>("code");
  const error = byId("login-error");
  const submit = form.querySelector<HTMLButtonElement>("button[type=submit]")!;
  let pendingToken: string | null = null;

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      const answer = pendingToken
        ? await request<TokenAnswer>("POST", "/api/auth/totp/verify", { json: { code: code.value.trim() }, token: pendingToken })
        : await request<TokenAnswer>("POST", "/api/auth/login", { form: { username: username.value, password: password.value } });
      if (answer.totp_required) {
        pendingToken = answer.access_token;
        codeField.hidden = false;
        code.required = true;
        code.focus();
        error.textContent = "This account has a second factor: enter your code.";
        return;
      }
      saveToken(answer.access_token);
      reset();
      onLoggedIn();
    } catch (failure) {
      if (pendingToken && failure instanceof ApiError && failure.status === 401 && /expired|revoked|log in again/i.test(failure.message)) reset();
      error.textContent = failure instanceof ApiError ? failure.message : "The server could not be reached. Try again.";
    } finally {
      submit.disabled = false;
    }
  });

  function reset() {
    pendingToken = null;
    password.value = "";
    code.value = "";
    code.required = false;
    codeField.hidden = true;
  }
  return { reset };
}
