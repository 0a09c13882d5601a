// `Export`: POST /api/notes/export with the token (a plain link could not send it), then the ZIP is
// handed to the browser as a download under the name the server gives.
import { readToken } from "../session";
import { byId } from "../dom";

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
      const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "notes.zip";
      const blob = await response.blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      // Long enough for the browser to have taken the bytes.
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      message.textContent = `Downloaded ${name} (${size.format(blob.size / 1024)} KB).`;
    } catch {
      message.textContent = "The server could not be reached.";
    } finally {
      trigger.disabled = false;
    }
  });
  return { reset: () => (message.textContent = "") };
}
