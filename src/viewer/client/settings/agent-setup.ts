// The ready-to-paste lines that connect an agent to this service with a new access token — the same
// commands and files docs/agents.md shows, with the real MCP URL and token filled in.
import { make } from "../dom";
import { copyButton } from "../forms";

let known: Promise<string> | null = null;

/**
 * Where agents reach MCP. The server names it in its protected-resource metadata (RFC 9728:
 * `<PUBLIC_URL>/mcp`), which is right behind a proxy where the page may have been opened by an
 * inside address; this page's own origin stands in when the metadata cannot be read, or names an
 * address no agent can reach (a server listening on every address with no PUBLIC_URL set).
 */
export function mcpUrl(): Promise<string> {
  known ??= (async () => {
    const ownUrl = `${location.origin}/mcp`;
    try {
      const response = await fetch("/.well-known/oauth-protected-resource", { headers: { accept: "application/json" }, credentials: "omit" });
      if (!response.ok) return ownUrl;
      const resource = ((await response.json()) as { resource?: unknown }).resource;
      if (typeof resource !== "string" || !URL.canParse(resource)) return ownUrl;
      const { protocol, hostname } = new URL(resource);
      if (!/^https?:$/.test(protocol) || hostname === "0.0.0.0" || hostname === "[::]") return ownUrl;
      return resource;
    } catch {
      return ownUrl;
    }
  })();
  return known;
}

export interface AgentLine {
  /** What it is for, shown above it: "Claude Code". */
  title: string;
  /** Where it goes, after the title. */
  where: string;
  text: string;
}

export function agentLines(url: string, token: string): AgentLine[] {
  const authorization = `Bearer ${token}`;
  return [
    { title: "Claude Code", where: "run in a terminal", text: `claude mcp add --transport http rhizome ${url} --header "Authorization: ${authorization}"` },
    { title: "Cursor", where: "~/.cursor/mcp.json", text: JSON.stringify({ mcpServers: { rhizome: { url, headers: { Authorization: authorization } } } }, null, 2) },
    { title: "VS Code", where: ".vscode/mcp.json", text: JSON.stringify({ servers: { rhizome: { type: "http", url, headers: { Authorization: authorization } } } }, null, 2) },
  ];
}

/** Each line with its title and its own Copy (named for what it copies; the token's own is plain `Copy`). */
export function agentSetup(url: string, token: string): HTMLElement {
  const part = make("div", undefined, "agent-setup");
  part.append(make("h5", "Connect an agent"));
  for (const line of agentLines(url, token)) {
    const title = make("p", undefined, "agent-title");
    title.append(make("strong", line.title), ` — ${line.where}`);
    const text = make("pre", line.text);
    text.setAttribute("aria-label", `${line.title} set-up`);
    const copy = copyButton(() => line.text, text);
    copy.setAttribute("aria-label", `Copy the ${line.title} set-up`);
    part.append(title, text, copy);
  }
  return part;
}
