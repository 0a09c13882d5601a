import type { ReadResourceResult } from "@modelcontextprotocol/server";
import type { McpExtension } from "../extension";
import { appHtml } from "./app-html";
import { APP_MIME_TYPE, APP_RESOURCE_META, APPS } from "./ui-resources";

/** The MCP Apps extension's identifier (ext-apps' EXTENSION_ID). */
export const APPS_EXTENSION_ID = "io.modelcontextprotocol/ui";

/**
 * MCP Apps beside the tools: resources/read of the two ui:// documents, by any token (they hold
 * no data). They are not listed: hosts find them through the tools' `_meta.ui.resourceUri` (as
 * SEP-1865 allows), and resources/list stays the user's notes. The tools name them in
 * tool-catalogue.ts.
 */
export const appsExtension: McpExtension = {
  id: APPS_EXTENSION_ID,
  resources: { read: readAppResource },
};

/** The app's HTML with its `_meta.ui` (SEP-1865 "UI Resource Format"); undefined for a URI not an app's. */
export async function readAppResource(uri: string): Promise<ReadResourceResult | undefined> {
  const app = APPS[uri];
  if (!app) return undefined;
  return { contents: [{ uri, mimeType: APP_MIME_TYPE, text: await appHtml(app), _meta: APP_RESOURCE_META }] };
}
