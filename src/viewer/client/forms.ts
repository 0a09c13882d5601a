// What the Settings and Trash views share: labelled fields, a refusal said in words where the person
// acted, and a Copy button for what is shown once.
import { ApiError } from "./api";
import { button, make } from "./dom";

let fieldCount = 0;

/** An input with its <label> (so `getByLabel(name)` finds it), wrapped for layout. */
export function field<T extends HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>(label: string, control: T, hint?: string): { row: HTMLElement; control: T } {
  const row = make("div", undefined, "field");
  control.id ||= `field-${++fieldCount}`;
  const labelElement = make("label", label);
  labelElement.htmlFor = control.id;
  row.append(labelElement, control);
  if (hint) {
    const note = make("p", hint, "hint");
    note.id = `${control.id}-hint`;
    control.setAttribute("aria-describedby", note.id);
    row.append(note);
  }
  return { row, control };
}

export function input(type: string, options: { autocomplete?: string; required?: boolean; inputmode?: string } = {}): HTMLInputElement {
  const element = make("input");
  element.type = type;
  element.autocomplete = (options.autocomplete ?? "off") as AutoFill;
  element.spellcheck = false;
  if (options.required) element.required = true;
  if (options.inputmode) element.inputMode = options.inputmode;
  return element;
}

/** A refusal in words: the server's own message, with the wait of a 429. */
export function failureText(failure: unknown): string {
  if (!(failure instanceof ApiError)) return "The server could not be reached. Try again.";
  if (failure.status === 429 && failure.retryAfter !== null) return `${failure.message} Try again in ${waitText(failure.retryAfter)}.`;
  // "Input validation failed" says nothing a person can act on; the issues name the field and what is wrong.
  if (failure.issues.length) return failure.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message)).join("; ");
  return failure.message;
}

function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** An element for a region's refusals and confirmations, read out when it changes. */
export function messageLine(): HTMLElement {
  const line = make("p", "", "error");
  line.setAttribute("role", "alert");
  return line;
}

/**
 * Runs what a button does with the button held down, and puts a refusal on `line`; true when it went
 * through. Nothing fails silently.
 */
export async function attempt(trigger: HTMLButtonElement | null, line: HTMLElement, work: () => Promise<void>): Promise<boolean> {
  if (trigger) trigger.disabled = true;
  line.textContent = "";
  try {
    await work();
    return true;
  } catch (failure) {
    line.textContent = failureText(failure);
    return false;
  } finally {
    if (trigger) trigger.disabled = false;
  }
}

/** `Copy`: the text to the clipboard, or, where the page may not write it, the text selected for Ctrl+C. */
export function copyButton(text: () => string, shown: HTMLElement): HTMLButtonElement {
  const copy = button("Copy", () => {
    const done = () => {
      copy.textContent = "Copied";
      setTimeout(() => (copy.textContent = "Copy"), 2000);
    };
    navigator.clipboard?.writeText(text()).then(done, () => {
      getSelection()?.selectAllChildren(shown);
      copy.textContent = "Press Ctrl+C";
    });
  }, "quiet");
  return copy;
}

/** A date as the person reads it, in their own time zone. */
export function when(iso: string | null): string {
  if (!iso) return "never";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
