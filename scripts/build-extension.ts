// `npm run build:extension`: the browser extension under extension/, built once from its one
// TypeScript source into an unpacked directory and a ZIP per browser under dist/:
//   dist/rhizome-extension-chromium/  dist/rhizome-extension-chromium.zip  (background: a service worker)
//   dist/rhizome-extension-firefox/   dist/rhizome-extension-firefox.zip   (background: scripts; gecko id)
// `--if-missing` builds only when a ZIP is missing (what `npm start` runs first).
import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";
import { drawIcon } from "../src/viewer/icons";

/** The toolbar's and the extensions page's sizes; the same picture as the installed app's icon. */
const ICON_SIZES = [16, 32, 48, 128] as const;

export const EXTENSION_SOURCE = path.resolve(import.meta.dir, "../extension");
export const DIST_DIR = path.resolve(import.meta.dir, "../dist");
export const BROWSERS = ["chromium", "firefox"] as const;
export type TargetBrowser = (typeof BROWSERS)[number];
export const GECKO_ID = "save-to-rhizome@rhizome.notes";

/** Where a browser's build goes: its unpacked directory and its ZIP. */
export function extensionOutputs(browser: TargetBrowser, outDir = DIST_DIR): { dir: string; zip: string } {
  return { dir: path.join(outDir, `rhizome-extension-${browser}`), zip: path.join(outDir, `rhizome-extension-${browser}.zip`) };
}

function manifestFor(browser: TargetBrowser, version: string): Record<string, unknown> {
  const base = JSON.parse(fs.readFileSync(path.join(EXTENSION_SOURCE, "manifest.json"), "utf8")) as Record<string, unknown>;
  const background = browser === "chromium" ? { service_worker: "background.js" } : { scripts: ["background.js"] };
  return {
    ...base,
    version,
    background,
    ...(browser === "firefox" && { browser_specific_settings: { gecko: { id: GECKO_ID, strict_min_version: "121.0" } } }),
  };
}

/** A ZIP whose entries carry one fixed time, so the same source gives the same bytes. */
function zipDirectory(files: Map<string, Uint8Array>): Uint8Array {
  const mtime = new Date("2026-01-01T00:00:00Z");
  const entries = Object.fromEntries([...files].sort(([a], [b]) => a.localeCompare(b)).map(([name, bytes]) => [name, [bytes, { mtime }] as [Uint8Array, { mtime: Date }]]));
  return zipSync(entries, { level: 9 });
}

/** Builds both browsers' extensions into `outDir`; returns their outputs. */
export async function buildExtension(outDir = DIST_DIR): Promise<Record<TargetBrowser, { dir: string; zip: string }>> {
  const packageVersion = (JSON.parse(fs.readFileSync(path.resolve(import.meta.dir, "../package.json"), "utf8")) as { version: string }).version;
  const built = await Bun.build({
    entrypoints: [path.join(EXTENSION_SOURCE, "src/background.ts"), path.join(EXTENSION_SOURCE, "src/options.ts")],
    target: "browser",
    format: "iife",
    // Readable output: add-on stores review what they ship.
    minify: false,
  });
  if (!built.success) throw new AggregateError(built.logs, "the extension did not build");
  const scripts = new Map<string, Uint8Array>();
  for (const output of built.outputs) scripts.set(path.basename(output.path), new Uint8Array(await output.arrayBuffer()));

  const shared = new Map<string, Uint8Array>(scripts);
  for (const file of ["options.html", "options.css"]) shared.set(file, fs.readFileSync(path.join(EXTENSION_SOURCE, file)));
  for (const size of ICON_SIZES) shared.set(`icons/icon-${size}.png`, drawIcon(size, false));

  const outputs = {} as Record<TargetBrowser, { dir: string; zip: string }>;
  fs.mkdirSync(outDir, { recursive: true });
  for (const browser of BROWSERS) {
    const files = new Map(shared);
    files.set("manifest.json", new TextEncoder().encode(JSON.stringify(manifestFor(browser, packageVersion), null, 2) + "\n"));
    const target = extensionOutputs(browser, outDir);
    fs.rmSync(target.dir, { recursive: true, force: true });
    for (const [name, bytes] of files) {
      fs.mkdirSync(path.dirname(path.join(target.dir, name)), { recursive: true });
      fs.writeFileSync(path.join(target.dir, name), bytes);
    }
    // Written aside and renamed, so the service never serves half a ZIP.
    fs.writeFileSync(`${target.zip}.tmp`, zipDirectory(files));
    fs.renameSync(`${target.zip}.tmp`, target.zip);
    outputs[browser] = target;
  }
  return outputs;
}

if (import.meta.main) {
  const ifMissing = process.argv.includes("--if-missing");
  if (ifMissing && BROWSERS.every((browser) => fs.existsSync(extensionOutputs(browser).zip))) process.exit(0);
  try {
    const outputs = await buildExtension();
    for (const browser of BROWSERS) console.log(`wrote ${path.relative(process.cwd(), outputs[browser].zip)} and ${path.relative(process.cwd(), outputs[browser].dir)}/`);
  } catch (error) {
    console.error("The browser extension could not be built:", error);
    process.exit(1);
  }
}
