// The service worker (`/sw.js`, scope `/`). Workbox keeps the app's shell — the page, its bundle,
// styles, manifest and icons — precached under their revisions, so `/` opens without a network and a
// new bundle is a new worker whose cache the next load uses. Navigations to the app's views get the
// page; nothing under /api is ever answered from here (the page keeps its own offline reads). POST
// /share (the manifest's share target) is kept in the IndexedDB outbox and the app is opened, where
// the logged-in page sends it.
import { clientsClaim } from "workbox-core";
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute, type PrecacheEntry } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import { addToOutbox, type SharedItem } from "../offline/store";

/** The shell's files and their revisions, written in when the bundle is built (src/viewer/bundle.ts). */
declare const __PRECACHE__: PrecacheEntry[];
/** The app's own paths: each is the page, opened on one of its views. */
declare const __APP_PATHS__: string[];

interface ServiceWorkerScope {
  skipWaiting(): Promise<void>;
  clients: { matchAll(options: { type: "window" }): Promise<{ id: string; postMessage(message: unknown): void }[]> };
}
const scope = self as unknown as ServiceWorkerScope;

// An upgraded worker takes over at once: the next load runs the new app.
void scope.skipWaiting();
clientsClaim();
cleanupOutdatedCaches();
precacheAndRoute(__PRECACHE__);

// Only the app's views are the page; /docs, /s/<token>, /oauth/… and the rest go to the network.
const views = __APP_PATHS__.map((path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
registerRoute(new NavigationRoute(createHandlerBoundToURL("/"), { allowlist: [new RegExp(`^(${views})/?$`)] }));

registerRoute(
  ({ url }) => url.pathname === "/share",
  async ({ request, event }) => {
    const form = await request.formData();
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value.slice(0, 1_000_000) : "";
    };
    const share: SharedItem = {
      title: text("title"),
      text: text("text"),
      url: text("url"),
      files: form.getAll("files").filter((value): value is File => typeof value !== "string" && value.size > 0),
    };
    if (share.title || share.text || share.url || share.files.length > 0) {
      await addToOutbox({ kind: "share", createdAt: Date.now(), share });
      // Other open windows of the app send it now; the page that shared is leaving, and the app
      // this answer opens sends it as it starts (two senders at once could send it twice).
      const sharer = (event as { clientId?: string }).clientId;
      for (const client of await scope.clients.matchAll({ type: "window" })) if (client.id !== sharer) client.postMessage({ type: "outbox" });
    }
    return Response.redirect("/?shared=1", 303);
  },
  "POST",
);
