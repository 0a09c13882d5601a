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
