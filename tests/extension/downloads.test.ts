import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import path from "node:path";
import { strFromU8, unzipSync } from "fflate";
import { buildExtension, GECKO_ID } from "../../scripts/build-extension";
import { extensionDownloadRoutes } from "../../src/http/extension-downloads";
import { directoryForThisFile } from "../support/temporary-directory";

// `npm run build:extension` and the service's /extension/ downloads: one source, two ZIPs whose
// manifests differ only where the browsers do.

const built = directoryForThisFile("rhizome-extension-build-");
const empty = directoryForThisFile("rhizome-extension-none-");
await buildExtension(built);

const routes = extensionDownloadRoutes({ dir: built });
const get = (file: string, app = routes) => app.handle(new Request(`http://rhizome.test/extension/${file}`));

async function downloaded(browser: "chromium" | "firefox") {
  const response = await get(`rhizome-extension-${browser}.zip`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/zip");
  expect(response.headers.get("content-disposition")).toBe(`attachment; filename="rhizome-extension-${browser}.zip"`);
  const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
  return { files, manifest: JSON.parse(strFromU8(files["manifest.json"]!)) };
}

describe("the built extension", () => {
  test("Chromium's: Manifest V3 with a service worker, every site's access declared, the button, the shortcut and the options page", async () => {
    const { files, manifest } = await downloaded("chromium");
    expect(manifest).toMatchObject({
      manifest_version: 3,
      background: { service_worker: "background.js" },
      host_permissions: ["<all_urls>"],
      action: { default_title: "Save to Rhizome" },
      commands: { "save-page": { suggested_key: { default: "Alt+Shift+S" } } },
      options_ui: { page: "options.html" },
    });
    expect(manifest.permissions.sort()).toEqual(["contextMenus", "identity", "notifications", "scripting", "storage"]);
    expect(manifest.browser_specific_settings).toBeUndefined();
    for (const file of ["background.js", "options.js", "options.html", "options.css", "icons/icon-16.png", "icons/icon-128.png"]) expect(files[file]).toBeDefined();
    // Icons are PNGs; the background script was bundled from TypeScript (no import left in it).
    expect([...files["icons/icon-128.png"]!.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    const background = strFromU8(files["background.js"]!);
    expect(background).not.toMatch(/^\s*import\s/m);
    for (const title of ["Save page to Rhizome", "Save link to Rhizome", "Save selection to Rhizome", "Save image to Rhizome"]) expect(background).toContain(title);
    const options = strFromU8(files["options.html"]!);
    expect(options).toContain('<label for="server">Server address</label>');
    expect(options).toContain('<label for="token">Access token</label>');
  });

  test("Firefox's: the same files, background scripts instead of a service worker, and a gecko id", async () => {
    const chromium = await downloaded("chromium");
    const { files, manifest } = await downloaded("firefox");
    expect(manifest.background).toEqual({ scripts: ["background.js"] });
    expect(manifest.browser_specific_settings.gecko.id).toBe(GECKO_ID);
    const { background: _firefox, browser_specific_settings: _gecko, ...firefoxRest } = manifest;
    const { background: _chromium, ...chromiumRest } = chromium.manifest;
    expect(firefoxRest).toEqual(chromiumRest);
    expect(Object.keys(files).sort()).toEqual(Object.keys(chromium.files).sort());
    expect(strFromU8(files["background.js"]!)).toBe(strFromU8(chromium.files["background.js"]!));
  });

  test("the unpacked directories hold what the ZIPs hold", async () => {
    const { files } = await downloaded("chromium");
    for (const [name, bytes] of Object.entries(files)) expect(fs.readFileSync(path.join(built, "rhizome-extension-chromium", name)).equals(Buffer.from(bytes))).toBe(true);
  });

  test("the same source builds the same bytes", async () => {
    const again = directoryForThisFile("rhizome-extension-again-");
    await buildExtension(again);
    for (const zip of ["rhizome-extension-chromium.zip", "rhizome-extension-firefox.zip"]) {
      expect(fs.readFileSync(path.join(again, zip)).equals(fs.readFileSync(path.join(built, zip)))).toBe(true);
    }
  });
});

describe("GET /extension/…", () => {
  test("before a build: a 404 whose body says how to build it", async () => {
    const response = await get("rhizome-extension-firefox.zip", extensionDownloadRoutes({ dir: empty }));
    expect(response.status).toBe(404);
    const body = await response.json();
    expect(body.code).toBe("NOT_FOUND");
    expect(body.message).toContain("npm run build:extension");
  });

  test("any other file is a 404, never a file of dist/ or above it", async () => {
    for (const file of ["rhizome-extension-chromium", "..%2Fpackage.json", "rhizome-extension-chromium%2Fmanifest.json"]) {
      const response = await get(file);
      expect(response.status).toBe(404);
      expect((await response.json()).code).toBe("NOT_FOUND");
    }
  });

  test("npm start builds the extension first when it is missing", () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dir, "../../package.json"), "utf8"));
    expect(scripts["build:extension"]).toBe("bun run scripts/build-extension.ts");
    for (const start of [scripts.start, scripts["start:api"]]) expect(start).toStartWith("bun run scripts/build-extension.ts --if-missing; ");
  });
});
