// Browser code: a host of MCP Apps in a test page, built on ext-apps' own AppBridge. It draws an
// app's HTML in a sandboxed frame (srcdoc, scripts only: an origin of its own) under the CSP the
// spec has hosts build from the resource's `_meta.ui.csp`, hands it a tool's input and result, and
// answers the app's tools/call through `hostCallTool`, a function the test exposes (the test process
// asks the real MCP server). Bundled by mcp-app-page.ts; never part of the service.
import { AppBridge, PostMessageTransport, type McpUiResourceCsp, type McpUiTheme } from "@modelcontextprotocol/ext-apps/app-bridge";

export interface ShowApp {
  html: string;
  csp: McpUiResourceCsp | undefined;
  theme: McpUiTheme;
  args: Record<string, unknown>;
  result: Record<string, unknown>;
}

interface HostWindow {
  showApp(options: ShowApp): Promise<void>;
  hostCallTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  hostOpenLink(url: string): Promise<void>;
}
const host = window as unknown as HostWindow;

/** The spec's CSP construction ("Content Security Policy Enforcement"), from the declared domains only. */
function cspOf(csp: McpUiResourceCsp | undefined): string {
  const resources = (csp?.resourceDomains ?? []).join(" ");
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src 'self' ${(csp?.connectDomains ?? []).join(" ")}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${(csp?.frameDomains ?? []).join(" ") || "'none'"}`,
    "object-src 'none'",
    `base-uri ${(csp?.baseUriDomains ?? []).join(" ") || "'self'"}`,
  ].join("; ");
}

host.showApp = async ({ html, csp, theme, args, result }) => {
  document.querySelector("iframe")?.remove();
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = "MCP App";
  frame.style.cssText = "width: 760px; height: 900px; border: 1px solid #888;";
  const policy = `<meta http-equiv="Content-Security-Policy" content="${cspOf(csp)}">`;
  frame.srcdoc = html.replace(/<head>/i, `<head>${policy}`);
  document.body.style.background = theme === "dark" ? "#111" : "#fff";
  document.body.append(frame);

  const bridge = new AppBridge(
    null,
    { name: "rhizome-test-host", version: "1.0.0" },
    { openLinks: {}, serverTools: {}, logging: {} },
    { hostContext: { theme, displayMode: "inline", platform: "web", containerDimensions: { width: 760, maxHeight: 900 } } },
  );
  bridge.oncalltool = async (params) => {
    const answer = await host.hostCallTool(params.name, params.arguments ?? {});
    return answer as Awaited<ReturnType<NonNullable<AppBridge["oncalltool"]>>>;
  };
  bridge.onopenlink = async ({ url }) => {
    await host.hostOpenLink(url);
    return {};
  };
  // As a host does: the input, then the result, once the view says it is initialized.
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: args }).then(() => bridge.sendToolResult(result as Parameters<AppBridge["sendToolResult"]>[0]));
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
};
