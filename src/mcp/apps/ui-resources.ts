// The MCP Apps extension (SEP-1865, `io.modelcontextprotocol/ui`, revision 2026-01-26): two UI
// resources a host draws inside the conversation, and the tools that name them. A host without the
// extension never reads them and sees the same tool results as before.
import type { AppName } from "./app-html";

/** The spec's MIME type for an app's HTML (ext-apps' RESOURCE_MIME_TYPE). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
export const NOTE_APP_URI = "ui://rhizome/note";
export const GRAPH_APP_URI = "ui://rhizome/graph";

/** Which app each URI is. */
export const APPS: Record<string, AppName> = { [NOTE_APP_URI]: "note", [GRAPH_APP_URI]: "graph" };

/**
 * `_meta.ui` of a resources/read content item: a CSP naming no origin at all (every list empty: no
 * connection, no script, style, image or font from elsewhere, no nested frame; base URI its own),
 * and a border drawn by the host around the card.
 */
export const APP_RESOURCE_META = {
  ui: {
    csp: { connectDomains: [] as string[], resourceDomains: [] as string[], frameDomains: [] as string[], baseUriDomains: [] as string[] },
    prefersBorder: true,
  },
};

/**
 * A tool's `_meta` naming its app: `ui.resourceUri`, and the flat `ui/resourceUri` that hosts
 * built before the nested form still read (ext-apps' registerAppTool sets both the same way).
 */
export function appToolMeta(uri: string): Record<string, unknown> {
  return { ui: { resourceUri: uri }, "ui/resourceUri": uri };
}
