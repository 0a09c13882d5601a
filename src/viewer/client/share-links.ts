// `Share` in a note's view: public links to the note as it is now (POST/GET /api/notes/{id}/shares),
// each with its address, when it was made and when it expires, `Copy` and `Revoke`
// (DELETE /api/shares/{id}). The section sits inside the note's <article>, after its History, so it
// moves with the article between the notes app and the graph view; its form exists only while a note
// is shown (each label names one thing on the page).
import { del, get, post } from "./api";
import { button, make } from "./dom";
import { attempt, copyButton, field, input, messageLine, when } from "./forms";
import type { Note } from "./types";

interface ShareLink {
  id: number;
  note_id: number;
  url: string;
  created_at: string;
  expires_at: string | null;
}

export interface ShareLinks {
  load(note: Note): Promise<void>;
  reset(): void;
}

export function setUpShareLinks(after: HTMLElement): ShareLinks {
  const section = make("section", undefined, "note-share");
  section.id = "note-share";
  const heading = make("h3", "Share");
  heading.id = "note-share-title";
  section.setAttribute("aria-labelledby", heading.id);
  const intro = make("p", "Anyone with a link reads this note as it is now, without logging in, until the link expires or you revoke it.", "hint");
  const formSlot = make("div");
  const message = messageLine();
  const summary = make("p", "", "hint");
  summary.setAttribute("aria-live", "polite");
  const list = make("ul", undefined, "share-list");
  list.setAttribute("aria-label", "Live links");
  section.append(heading, intro, formSlot, message, summary, list);
  section.hidden = true;
  after.after(section);
  let generation = 0;
  let count = 0;

  function form(note: Note): HTMLFormElement {
    const element = make("form", undefined, "share-form");
    element.noValidate = true; // the server says what a bad number of days is
    const days = field("Expires in days", input("number", { inputmode: "numeric" }));
    days.control.min = "1";
    days.control.max = "365";
    days.control.step = "1";
    days.control.placeholder = "never";
    const hint = make("p", "1 to 365; left empty, the link never expires.", "hint");
    hint.id = "share-days-hint";
    days.control.setAttribute("aria-describedby", hint.id);
    const create = make("button", "Create link");
    create.type = "submit";
    element.append(days.row, create, hint);
    element.addEventListener("submit", (event) => {
      event.preventDefault();
      const mine = generation;
      const typed = days.control.value.trim();
      void attempt(create, message, async () => {
        const link = await post<ShareLink>(`/api/notes/${note.id}/shares`, typed ? { expires_in_days: Number(typed) } : {});
        if (mine !== generation) return;
        days.control.value = "";
        list.prepend(row(link));
        count++;
        say("A new link is at the top of the list: copy it and send it.");
      });
    });
    return element;
  }

  function say(lead = "") {
    const total = count === 0 ? "No live links: the note is private." : `${count === 1 ? "1 live link" : `${count} live links`} (at most 100).`;
    summary.textContent = lead ? `${lead} ${total}` : total;
  }

  function row(link: ShareLink): HTMLLIElement {
    const li = make("li");
    const address = make("a", link.url, "share-url");
    address.href = link.url;
    address.target = "_blank";
    address.rel = "noopener noreferrer";
    const dates = make("small", `Created ${when(link.created_at)} · ${link.expires_at ? `expires ${when(link.expires_at)}` : "never expires"}`);
    const line = messageLine();
    const revoke = button("Revoke", () => void attempt(revoke, line, async () => {
      await del(`/api/shares/${link.id}`);
      li.remove();
      count = Math.max(0, count - 1);
      say("Revoked: that link now leads nowhere.");
    }), "danger");
    const buttons = make("div", undefined, "actions");
    buttons.append(copyButton(() => link.url, address), revoke);
    li.append(address, dates, buttons, line);
    return li;
  }

  function reset() {
    generation++;
    section.hidden = true;
    formSlot.replaceChildren();
    list.replaceChildren();
    message.textContent = "";
    summary.textContent = "";
    count = 0;
  }

  async function load(note: Note) {
    reset();
    const mine = generation;
    section.hidden = false;
    formSlot.replaceChildren(form(note));
    summary.textContent = "Reading the note's links…";
    await attempt(null, message, async () => {
      const answer = await get<{ items: ShareLink[] }>(`/api/notes/${note.id}/shares`);
      if (mine !== generation) return;
      // Newest first, as a new one is added.
      list.replaceChildren(...[...answer.items].reverse().map(row));
      count = answer.items.length;
      say();
    });
    if (mine === generation && message.textContent) summary.textContent = "";
  }

  return { load, reset };
}
