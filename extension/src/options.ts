import { ext } from "./browser-api";
import { connect } from "./oauth";
import { loadConnection, loadServer, normaliseServer, saveConnection } from "./settings";

// The options page: the server's address, then Connect (OAuth in the browser's sign-in window) or
// a pasted access token and Save.

const form = document.querySelector<HTMLFormElement>("#settings")!;
const serverField = document.querySelector<HTMLInputElement>("#server")!;
const tokenField = document.querySelector<HTMLInputElement>("#token")!;
const connectButton = document.querySelector<HTMLButtonElement>("#connect")!;
const saveButton = document.querySelector<HTMLButtonElement>("#save")!;
const status = document.querySelector<HTMLElement>("#status")!;

function say(message: string, failed = false) {
  status.textContent = message;
  status.classList.toggle("error", failed);
}

/** Asks the background (which owns the token and its refreshes) who the server says we are. */
async function showConnection(): Promise<void> {
  const connection = await loadConnection();
  if (!connection) {
    say("Not connected yet.");
    return;
  }
  const answer = (await ext.runtime.sendMessage({ type: "whoami" })) as { username?: string; error?: string };
  if (answer.username) {
    const how = connection.token.kind === "oauth" ? "connected" : "using a pasted access token";
    say(`Saving to ${connection.server} as ${answer.username} (${how}).`);
  } else {
    say(answer.error ?? "The server did not answer.", true);
  }
}

async function busy(button: HTMLButtonElement, work: () => Promise<void>): Promise<void> {
  connectButton.disabled = saveButton.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    await work();
    await showConnection();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), true);
  } finally {
    connectButton.disabled = saveButton.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

connectButton.addEventListener("click", () =>
  busy(connectButton, async () => {
    say("Waiting for you to allow access in the sign-in window…");
    await connect(serverField.value);
    serverField.value = normaliseServer(serverField.value);
  }),
);

form.addEventListener("submit", (event) => {
  event.preventDefault();
  void busy(saveButton, async () => {
    const server = normaliseServer(serverField.value);
    const accessToken = tokenField.value.trim();
    if (!accessToken) throw new Error("Paste an access token (rhz_…) to save it, or use Connect");
    await saveConnection({ server, token: { kind: "pasted", accessToken } });
    serverField.value = server;
    tokenField.value = "";
  });
});

void (async () => {
  serverField.value = (await loadServer()) ?? "";
  await showConnection();
})();
