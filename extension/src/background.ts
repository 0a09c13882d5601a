import { ext, type Tab } from "./browser-api";
import { openNotifiedNote } from "./follow-task";
import { callApi } from "./rhizome-api";
import { runSave, type SaveAnswer, type SaveRequest, saveRequestOf } from "./save-actions";

// The extension's background (Chromium's service worker, Firefox's event page): the toolbar
// button, the shortcut, the context menu and runtime messages, all running the same saves.

const MENU = [
  { id: "save-page", title: "Save page to Rhizome", contexts: ["page"] },
  { id: "save-link", title: "Save link to Rhizome", contexts: ["link"] },
  { id: "save-selection", title: "Save selection to Rhizome", contexts: ["selection"] },
  { id: "save-image", title: "Save image to Rhizome", contexts: ["image"] },
] as const;

ext.runtime.onInstalled.addListener(() => {
  void ext.contextMenus.removeAll().then(() => {
    for (const item of MENU) ext.contextMenus.create({ id: item.id, title: item.title, contexts: [...item.contexts] });
  });
});

async function savePageOf(tab: Tab | undefined): Promise<SaveAnswer> {
  const target = tab?.id !== undefined ? tab : (await ext.tabs.query({ active: true, lastFocusedWindow: true }))[0];
  if (target?.id === undefined) return { error: "No page is open to save" };
  return runSave({ type: "save-page", tabId: target.id });
}

ext.action.onClicked.addListener((tab) => void savePageOf(tab));

ext.commands.onCommand.addListener((command, tab) => {
  if (command === "save-page") void savePageOf(tab);
});

ext.contextMenus.onClicked.addListener((info, tab) => {
  const tabId = tab?.id;
  let request: SaveRequest | null = null;
  if (info.menuItemId === "save-page") request = tabId === undefined ? null : { type: "save-page", tabId };
  else if (info.menuItemId === "save-link" && info.linkUrl) request = { type: "save-link", url: info.linkUrl, tabId };
  else if (info.menuItemId === "save-selection") request = tabId === undefined ? null : { type: "save-selection", tabId };
  else if (info.menuItemId === "save-image" && info.srcUrl) request = tabId === undefined ? null : { type: "save-image", url: info.srcUrl, tabId };
  if (request) void runSave(request);
});

ext.notifications.onClicked.addListener((id) => void openNotifiedNote(id));

// Messages from the extension's own pages (the options page; tests drive saves this way).
ext.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== ext.runtime.id) return undefined;
  const save = saveRequestOf(message);
  if (save) {
    void runSave(save).then(sendResponse);
    return true;
  }
  if ((message as { type?: unknown } | null)?.type === "whoami") {
    callApi<{ username: string }>("GET", "/api/auth/me").then(
      (me) => sendResponse({ username: me.username }),
      (error: unknown) => sendResponse({ error: error instanceof Error ? error.message : String(error) }),
    );
    return true;
  }
  return undefined;
});
