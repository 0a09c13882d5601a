// The login form: username and password (POST /api/auth/login, the OAuth2 password form), then the
// `Code` field when the account asks for a second factor (POST /api/auth/totp/verify with the
// pending token, which is kept in memory only). When the server takes new accounts (GET
// /api/auth/registration), a `Create account` link turns the same form into account creation
// (POST /api/auth/register, then the same login): one Username and one Password field on the page.
import { ApiError, get, request } from "./api";
import { byId } from "./dom";
import { failureText } from "./forms";
import { saveToken } from "./session";
import type { TokenAnswer } from "./types";

type Mode = "login" | "create";

export function setUpLogin(onLoggedIn: () => void): { reset(): void; offerAccounts(): void } {
  const form = byId<HTMLFormElement>("login-form");
  const title = byId("login-title");
  const username = byId<HTMLInputElement>("username");
  const password = byId<HTMLInputElement>("password");
  const codeField = byId("code-field");
  const code = byId<HTMLInputElement>("code");
  const error = byId("login-error");
  const submit = byId<HTMLButtonElement>("login-submit");
  const keep = byId<HTMLInputElement>("keep-login");
  const switchLine = byId("login-switch");
  const switchHint = byId("switch-hint");
  const switchMode = byId<HTMLAnchorElement>("switch-mode");
  let pendingToken: string | null = null;
  let mode: Mode = "login";
  let registrationOpen = false;

  switchMode.addEventListener("click", (event) => {
    event.preventDefault();
    setMode(mode === "login" ? "create" : "login");
    username.focus();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      if (mode === "create") {
        await request("POST", "/api/auth/register", { json: { username: username.value.trim(), password: password.value } });
        setMode("login"); // the account exists: should the login below be refused, a retry logs in
      }
      const answer = pendingToken
        ? await request<TokenAnswer>("POST", "/api/auth/totp/verify", { json: { code: code.value.trim() }, token: pendingToken })
        : await request<TokenAnswer>("POST", "/api/auth/login", { form: { username: username.value.trim(), password: password.value } });
      if (answer.totp_required) {
        pendingToken = answer.access_token;
        codeField.hidden = false;
        code.required = true;
        code.focus();
        error.textContent = "This account has a second factor: enter your code.";
        return;
      }
      saveToken(answer.access_token, keep.checked);
      reset();
      onLoggedIn();
    } catch (failure) {
      if (pendingToken && failure instanceof ApiError && failure.status === 401 && /expired|revoked|log in again/i.test(failure.message)) reset();
      error.textContent = failureText(failure);
    } finally {
      submit.disabled = false;
    }
  });

  function setMode(next: Mode) {
    mode = next;
    error.textContent = "";
    pendingToken = null;
    code.value = "";
    code.required = false;
    codeField.hidden = true;
    const creating = next === "create";
    title.textContent = creating ? "Create a Rhizome account" : "Log in to Rhizome";
    submit.textContent = creating ? "Create account" : "Log in";
    password.autocomplete = creating ? "new-password" : "current-password";
    password.minLength = creating ? 8 : 0;
    password.maxLength = creating ? 128 : 524288;
    username.maxLength = creating ? 32 : 524288;
    switchHint.textContent = creating ? "Have an account?" : "New here?";
    switchMode.textContent = creating ? "Log in instead" : "Create account";
    switchMode.href = creating ? "#log-in" : "#create-account";
    switchLine.hidden = !registrationOpen && !creating;
  }

  function reset() {
    pendingToken = null;
    keep.checked = false;
    password.value = "";
    code.value = "";
    code.required = false;
    codeField.hidden = true;
    if (mode !== "login") setMode("login");
  }

  /** Asks the server whether it takes new accounts, and offers `Create account` when it does. */
  function offerAccounts() {
    get<{ open: boolean }>("/api/auth/registration").then(
      (answer) => {
        registrationOpen = answer.open;
        switchLine.hidden = !registrationOpen && mode === "login";
        if (!registrationOpen && mode === "create") setMode("login");
      },
      () => {
        switchLine.hidden = mode === "login"; // unknown: the form stays a login form
      },
    );
  }
  return { reset, offerAccounts };
}
