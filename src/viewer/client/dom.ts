// Small DOM helpers for the page: look up its fixed elements, and build elements whose text is set
// through textContent only (note and concept text is never parsed as HTML).

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

export function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (text !== undefined) element.textContent = text;
  if (className) element.className = className;
  return element;
}

export function button(text: string, onClick: () => void, className?: string): HTMLButtonElement {
  const element = make("button", text, className);
  element.type = "button";
  element.addEventListener("click", onClick);
  return element;
}

/**
 * Hands a fetched body to the browser as a download, under the name its `Content-Disposition` gives
 * (else `fallback`); a plain link could not send the token. Returns the name and the bytes' count.
 */
export async function downloadResponse(response: Response, fallback: string): Promise<{ name: string; size: number }> {
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? fallback;
  const blob = await response.blob();
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Long enough for the browser to have taken the bytes.
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  return { name, size: blob.size };
}
