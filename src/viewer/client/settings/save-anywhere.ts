// `Save from anywhere`: install the app (the browser's own prompt, where it offers one — then
// Rhizome is in the phone's share sheet), the browser extension (its zips, served by this service),
// and the `Save to Rhizome` bookmarklet, which opens /save with the page's address in a small window.
import { byId, make } from "../dom";
import type { Region } from "./settings-view";

/** Chromium's install prompt, held from the moment the browser offers it until the person asks. */
interface InstallPrompt extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
}
let offered: InstallPrompt | null = null;
window.addEventListener("beforeinstallprompt", (event) => {
  event.preventDefault();
  offered = event as InstallPrompt;
});

export function saveAnywhereRegion(): Region {
  const section = byId("settings-save");
  const body = make("div");
  section.append(body);

  function load() {
    body.replaceChildren(installPart(), extensionPart(), bookmarkletPart());
  }
  return { load, reset: () => body.replaceChildren() };
}

function installPart(): HTMLElement {
  const part = make("div");
  part.append(make("h4", "Install the app"));
  const standalone = matchMedia("(display-mode: standalone)").matches;
  const line = make("p", "", "hint");
  line.setAttribute("role", "status");
  if (standalone) line.textContent = "You are using the installed app.";
  else if (offered) {
    const install = make("button", "Install Rhizome");
    install.type = "button";
    install.addEventListener("click", async () => {
      const prompt = offered;
      if (!prompt) return;
      offered = null;
      await prompt.prompt();
      const { outcome } = await prompt.userChoice;
      install.hidden = true;
      line.textContent = outcome === "accepted" ? "Installed: Rhizome is now among your apps and in your share sheet." : "Not installed. Your browser's menu offers it again.";
    });
    part.append(install);
  } else line.textContent = "Your browser installs Rhizome from its menu (Install app, or Add to Home Screen on a phone). Installed, it opens offline and takes shares from other apps.";
  part.append(line);
  return part;
}

function extensionPart(): HTMLElement {
  const part = make("div");
  part.append(make("h4", "Browser extension"), make("p", "Saves the page you see (even behind a login), a link, a selection or a picture, from the toolbar, the right-click menu or Alt+Shift+S.", "hint"));
  const links = make("ul");
  for (const [browser, file] of [["Chrome, Edge and other Chromium browsers", "rhizome-extension-chromium.zip"], ["Firefox", "rhizome-extension-firefox.zip"]] as const) {
    const link = make("a", `Extension for ${browser}`);
    link.href = `/extension/${file}`;
    link.download = file;
    const item = make("li");
    item.append(link);
    links.append(item);
  }
  part.append(links, make("p", "Unzip it and load it as an unpacked extension (chrome://extensions with Developer mode on; about:debugging in Firefox), then open its options and press Connect.", "hint"));
  return part;
}

function bookmarkletPart(): HTMLElement {
  const part = make("div");
  part.append(make("h4", "Bookmarklet"));
  const link = make("a", "Save to Rhizome", "bookmarklet");
  link.href = bookmarklet(location.origin);
  // Clicked here it would do nothing useful (and the page's policy refuses it): it is for dragging.
  link.addEventListener("click", (event) => event.preventDefault());
  part.append(link, make("p", "Drag this link to your bookmarks bar. On any page, clicking it saves that page to Rhizome in a small window.", "hint"));
  return part;
}

/** The bookmarklet: opens <origin>/save with the page's address and title in a small window. */
export function bookmarklet(origin: string): string {
  const code = `(()=>{const u=${JSON.stringify(`${origin}/save`)}+"?url="+encodeURIComponent(location.href)+"&title="+encodeURIComponent(document.title);window.open(u,"rhizome-save","width=440,height=360")||location.assign(u)})()`;
  return `javascript:${encodeURIComponent(code)}`;
}
