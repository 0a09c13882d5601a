// The share page cache: a page is rendered once per link and note version, and the least recently
// read pages go once the kept strings pass the budget.
import { describe, expect, test } from "bun:test";
import { RenderedPages } from "../../../src/modules/shares/rendered-pages";

const note = (token: string, content: string, updatedAt = 1) => ({ token, title: `Note ${token}`, content, updatedAt });

describe("rendered share pages", () => {
  test("a page is found again until its note's updated_at moves", () => {
    const pages = new RenderedPages();
    const html = pages.render(note("a", "Some **bold** words."));
    expect(html).toContain("<strong>bold</strong>");
    expect(pages.find("a", 1)).toBe(html);
    expect(pages.find("a", 2)).toBeNull();
    expect(pages.find("b", 1)).toBeNull();
    expect(pages.render(note("a", "Now _new_.", 2))).toContain("<em>new</em>");
    expect(pages.find("a", 2)).toContain("<em>new</em>");
    expect(pages.renders).toBe(2);
    expect(pages.size.pages).toBe(1);
  });

  test("past the byte budget the least recently read pages go first; a page larger than the budget is not kept", () => {
    const one = new RenderedPages().render(note("x", "x".repeat(1000))).length * 2;
    const pages = new RenderedPages(one * 3 + 100);
    for (const token of ["a", "b", "c"]) pages.render(note(token, token.repeat(1000)));
    expect(pages.find("a", 1)).not.toBeNull();
    pages.render(note("d", "d".repeat(1000)));
    expect(["a", "b", "c", "d"].filter((token) => pages.find(token, 1) !== null)).toEqual(["a", "c", "d"]);
    expect(pages.size.bytes).toBeLessThanOrEqual(one * 3 + 100);
    pages.render(note("huge", "h".repeat(one * 4)));
    expect(pages.find("huge", 1)).toBeNull();
    expect(pages.size.pages).toBe(3);
  });
});
