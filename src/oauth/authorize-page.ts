import { escapeHtml } from "../text/html-entities";
import { SCOPES, type Scope } from "../modules/tokens/scopes";
import type { AuthorizationRequest } from "./authorization-request";
import { OAUTH_PATHS } from "./metadata";

/** What the page may do: its own stylesheet, forms to itself (and the client's redirect URI, where a form's answer leads), no script, no framing. */
export function pageCsp(redirectUri: string | null): string {
  const formAction = redirectUri && URL.canParse(redirectUri) ? `'self' ${new URL(redirectUri).origin}` : "'self'";
  return ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "base-uri 'none'", `form-action ${formAction}`, "frame-ancestors 'none'"].join("; ");
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)} · Rhizome</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${OAUTH_PATHS.stylesheet}">
</head>
<body>
<header class="bar"><h1>Rhizome</h1></header>
<main class="login oauth">
${body}
</main>
</body>
</html>
`;
}

function hiddenFields(fields: [string, string][]): string {
  return fields.map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join("\n");
}

function errorLine(message: string | undefined): string {
  return `<p class="error" role="alert">${message ? escapeHtml(message) : ""}</p>`;
}

/** A request the page will not act on (unknown client, unregistered redirect URI, no PKCE…): said here, never redirected. */
export function problemPage(message: string): string {
  return layout(
    "Cannot connect",
    `<section class="problem" aria-labelledby="problem-title">
<h2 id="problem-title">This connection request cannot be used</h2>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p class="hint">Nothing was shared. Go back to the application and start connecting again; if this repeats, tell its makers.</p>
</section>`,
  );
}

function clientLine(request: AuthorizationRequest): string {
  return `<strong>${escapeHtml(request.client.clientName)}</strong> (returning you to <strong>${escapeHtml(new URL(request.redirectUri).host)}</strong>)`;
}

export function loginPage(request: AuthorizationRequest, csrfToken: string, error?: string): string {
  return layout(
    "Log in",
    `<form method="post" action="${OAUTH_PATHS.authorize}" aria-labelledby="login-title">
<h2 id="login-title">Log in to connect an application</h2>
<p class="hint">${clientLine(request)} asks to use your Rhizome notes. Log in, then choose what it may do.</p>
${hiddenFields([...request.params, ["step", "login"], ["csrf_token", csrfToken]])}
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" autocapitalize="none" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
${errorLine(error)}
<button type="submit">Log in</button>
</form>`,
  );
}

export function verifyPage(request: AuthorizationRequest, csrfToken: string, error?: string): string {
  return layout(
    "Two-factor code",
    `<form method="post" action="${OAUTH_PATHS.authorize}" aria-labelledby="verify-title">
<h2 id="verify-title">Your second factor</h2>
<p class="hint">Enter the 6-digit code from your authenticator app, or a recovery code.</p>
${hiddenFields([...request.params, ["step", "verify"], ["csrf_token", csrfToken]])}
<label for="code">Code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
${errorLine(error)}
<button type="submit">Verify</button>
</form>`,
  );
}

/** "notes:write — create, update and delete notes; upload files": the scope's name first, then what it lets the application do. */
export function scopeLabel(scope: Scope): string {
  const allows = SCOPES[scope];
  return `${scope} — ${allows.charAt(0).toLowerCase()}${allows.slice(1)}`;
}

export function consentPage(request: AuthorizationRequest, login: { username: string; csrfToken: string }, error?: string): string {
  const boxes = request.scopes
    .map((scope, index) => {
      const id = `scope-${index}`;
      return `<div class="scope"><input type="checkbox" id="${id}" name="allow_scope" value="${escapeHtml(scope)}" checked><label for="${id}">${escapeHtml(scopeLabel(scope))}</label></div>`;
    })
    .join("\n");
  return layout(
    "Allow access",
    `<form method="post" action="${OAUTH_PATHS.authorize}" aria-labelledby="consent-title">
<h2 id="consent-title">Allow ${escapeHtml(request.client.clientName)} to use your notes?</h2>
<p class="hint">Logged in as <strong>${escapeHtml(login.username)}</strong>. ${clientLine(request)} asks for:</p>
<fieldset>
<legend>Permissions (untick what it should not have)</legend>
${boxes}
</fieldset>
<p class="hint">It reaches your notes only through this service's ${request.grantKind === "clipper" ? "REST API" : "MCP endpoint"}. You can revoke it at any time: it is listed with your access tokens.</p>
${hiddenFields([...request.params, ["step", "consent"], ["csrf_token", login.csrfToken]])}
${errorLine(error)}
<div class="choices">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="quiet">Deny</button>
</div>
</form>`,
  );
}
