import type { Page } from "playwright-core";

/**
 * What is drawn past the screen's right edge inside `selector` (a page must never scroll sideways, on
 * a phone least of all): the page or the element wider than the screen, any element's box, and any
 * line of text — a long unbroken word overflows its box without widening it, so boxes alone miss it.
 */
export function horizontalOverflow(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const width = document.documentElement.clientWidth;
    const wide: string[] = [];
    const root = document.querySelector<HTMLElement>(selector);
    if (!root) return [`nothing matches ${selector}`];
    if (document.documentElement.scrollWidth > width) wide.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    if (root.scrollWidth > root.clientWidth + 1) wide.push(`${selector} scrolls sideways (${root.scrollWidth} px of content in ${root.clientWidth})`);
    for (const element of root.querySelectorAll<HTMLElement>("*")) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 0.5) wide.push(`<${element.tagName.toLowerCase()} class="${element.className}"> ends at ${Math.round(box.right)} px`);
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      if (box.width > 0 && box.right > width + 0.5) wide.push(`the text “${node.textContent!.slice(0, 40)}” ends at ${Math.round(box.right)} px`);
    }
    return wide;
  }, selector);
}
