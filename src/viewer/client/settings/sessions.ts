// `Sessions`: the account's login sessions (GET /api/auth/sessions), this one marked `This device`,
// each with `End` (DELETE /api/auth/sessions/{id}), and `End all other sessions`
// (POST /api/auth/sessions/end-others). Ending this device's session is logging out.
import { del, get, post } from "../api";
import { button, byId, make } from "../dom";
import { attempt, messageLine, when } from "../forms";
import { forgetToken } from "../session";
import type { Region } from "./settings-view";

interface LoginSession {
  id: number;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  user_agent: string | null;
  current: boolean;
}

export function sessionsRegion(options: { endedHere(): void }): Region {
  const section = byId("settings-sessions");
  const body = make("div");
  section.append(body);
  let generation = 0;

  async function load() {
    const mine = ++generation;
    const line = messageLine();
    const list = make("ul", undefined, "list");
    list.setAttribute("aria-label", "Login sessions");
    const others = button("End all other sessions", () => void attempt(others, line, async () => {
      await post("/api/auth/sessions/end-others");
      await load();
    }), "quiet");
    body.replaceChildren(list, others, line);
    await attempt(null, line, async () => {
      const { items } = await get<{ items: LoginSession[] }>("/api/auth/sessions");
      if (mine !== generation) return;
      list.replaceChildren(...items.map((session) => row(session, line)));
      others.hidden = !items.some((session) => !session.current);
    });
  }

  function row(session: LoginSession, line: HTMLElement): HTMLLIElement {
    const li = make("li");
    const name = make("strong", describeAgent(session.user_agent));
    if (session.current) name.append(" ", make("span", "This device", "chip"));
    const dates = make("small", `Logged in ${when(session.created_at)} · last used ${when(session.last_used_at)} · ends ${when(session.expires_at)}`);
    const end = button("End", () => void attempt(end, line, async () => {
      await del(`/api/auth/sessions/${session.id}`);
      if (session.current) {
        forgetToken();
        options.endedHere();
      } else li.remove();
    }), "quiet");
    li.append(name, dates, end);
    return li;
  }

  return {
    load,
    reset() {
      generation++;
      body.replaceChildren();
    },
  };
}

/** "Firefox on Linux" from a User-Agent string; the string itself when nothing is recognised. */
export function describeAgent(agent: string | null): string {
  if (!agent) return "Unknown device";
  const browser = /Edg\//.test(agent) ? "Edge" : /Firefox\//.test(agent) ? "Firefox" : /Chrom(e|ium)\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : null;
  const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS" : /Mac OS X/.test(agent) ? "macOS" : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? agent.slice(0, 80);
}
