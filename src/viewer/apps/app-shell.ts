// What both MCP Apps share: the connection to the host (ext-apps' App over postMessage), the host's
// theme and style variables, links opened by the host, the tool result handed to a drawing, and
// tools called through the host. An app never fetches anything itself: its CSP names no origin.
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext, type McpUiToolResultNotification } from "@modelcontextprotocol/ext-apps";
import { make } from "../client/dom";

export type ToolResult = McpUiToolResultNotification["params"];

export interface AppHandlers {
  /** The answer of the tool the host called (its structuredContent), to draw. */
  draw(answer: Record<string, unknown>, args: Record<string, unknown>): void;
  /** The theme changed (light, dark, or the host's colours): redraw what is not CSS. */
  restyle?(): void;
  /** A `[[link]]` in a note was clicked, with its target. */
  wikilink?(target: string): void;
}

export interface AppShell {
  /** The region the app draws in. */
  root: HTMLElement;
  /** Calls a tool of this server through the host: its answer, or an Error carrying the result's message. */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A line saying what went wrong (or "" to remove it). */
  say(message: string): void;
}

/** Connects to the host, then hands every tool result to the handlers `setUp` makes with the shell. */
export async function startApp(name: string, setUp: (shell: AppShell) => AppHandlers): Promise<void> {
  const root = make("main", undefined, "app");
  const message = make("p", "", "error");
  message.setAttribute("role", "status");
  message.hidden = true;
  const waiting = make("p", "Waiting for Rhizome's answer…", "hint");
  document.body.replaceChildren(message, root);
  root.append(waiting);
  const say = (text: string) => {
    message.textContent = text;
    message.hidden = text === "";
  };

  const app = new App({ name: `rhizome-${name}`, version: "1.0.0" }, {});
  const handlers = setUp({
    root,
    say,
    async call(tool, toolArgs) {
      return answerOf(await app.callServerTool({ name: tool, arguments: toolArgs }));
    },
  });
  let args: Record<string, unknown> = {};
  app.ontoolinput = (params) => {
    args = params.arguments ?? {};
  };
  app.ontoolresult = (result) => {
    say("");
    try {
      handlers.draw(answerOf(result), args);
    } catch (error) {
      say(error instanceof Error ? error.message : String(error));
    }
  };
  app.ontoolcancelled = () => say("The tool call was cancelled.");
  app.onhostcontextchanged = (context) => {
    applyContext(context);
    handlers.restyle?.();
  };
  app.onteardown = async () => ({});
  followLinks(app, handlers);
  await app.connect();
  applyContext(app.getHostContext());
  handlers.restyle?.();
}

/** A result's structured answer; an error result (a note not found, a missing scope) is thrown with its text. */
function answerOf(result: ToolResult): Record<string, unknown> {
  const text = result.content?.find((part): part is { type: "text"; text: string } => part.type === "text")?.text;
  if (result.isError) throw new Error(text ?? "The tool call failed.");
  if (result.structuredContent) return result.structuredContent as Record<string, unknown>;
  // A host that passes only the content: the same JSON is its text.
  try {
    return JSON.parse(text ?? "") as Record<string, unknown>;
  } catch {
    throw new Error("The tool's answer could not be read.");
  }
}

/** The host's theme (light or dark) and its style variables, over the app's own defaults (apps.css). */
function applyContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

/** True when the app is drawn on a dark background: the host's theme, else the system's. */
export function isDark(): boolean {
  const theme = document.documentElement.getAttribute("data-theme");
  if (theme === "dark" || theme === "light") return theme === "dark";
  return matchMedia("(prefers-color-scheme: dark)").matches;
}

/**
 * A link to the web is opened by the host (ui/open-link): a sandboxed frame may not navigate or open
 * windows. A `[[link]]` goes to the app; any other link (a stored file, a page of this service) leads
 * nowhere from inside a conversation.
 */
function followLinks(app: App, handlers: AppHandlers): void {
  document.addEventListener("click", (event) => {
    const link = (event.target as Element | null)?.closest?.("a");
    if (!link) return;
    event.preventDefault();
    if (link.dataset.wikilink) handlers.wikilink?.(link.dataset.wikilink);
    else if (/^(https?:|mailto:)/i.test(link.href)) void app.openLink({ url: link.href });
  });
}
