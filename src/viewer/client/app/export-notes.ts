// `Export`: POST /api/notes/export with the token (a plain link could not send it), then the ZIP is
// handed to the browser as a download under the name the server gives.
import { readToken } from "../session";
import { byId, downloadResponse } from "../dom";

const size = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

export function setUpExport() {
  const trigger = byId<HTMLButtonElement>("export");
  const message = byId("export-message");

  trigger.addEventListener("click", async () => {
    trigger.disabled = true;
    message.textContent = "Preparing the export…";
    try {
      const token = readToken();
      const response = await fetch("/api/notes/export", {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: "{}",
        credentials: "omit",
        cache: "no-store",
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
        message.textContent = `The export failed: ${body?.message ?? response.status}`;
        return;
      }
      const { name, size: bytes } = await downloadResponse(response, "notes.zip");
      message.textContent = `Downloaded ${name} (${size.format(bytes / 1024)} KB).`;
    } catch {
      message.textContent = "The server could not be reached.";
    } finally {
      trigger.disabled = false;
    }
  });
  return { reset: () => (message.textContent = "") };
}
