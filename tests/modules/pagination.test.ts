import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { pageOf } from "../../src/modules/pagination";

describe("pageOf", () => {
  test("echoes the page asked for, with the items and total given", () => {
    expect(pageOf(["a", "b"], 12, { page: 2, size: 5 })).toEqual({ items: ["a", "b"], total: 12, page: 2, size: 5, pages: 3 });
  });

  test("nothing at all is 0 pages, and an exact fit is no extra page", () => {
    expect(pageOf([], 0, { page: 1, size: 20 }).pages).toBe(0);
    expect(pageOf([], 40, { page: 3, size: 20 }).pages).toBe(2);
  });

  test("pages is the fewest pages of `size` that hold `total`", () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.integer({ min: 1, max: 500 }), (total, size) => {
        const { pages } = pageOf([], total, { page: 1, size });
        expect(pages * size).toBeGreaterThanOrEqual(total);
        expect(Math.max(0, pages - 1) * size).toBeLessThan(Math.max(total, 1));
      }),
    );
  });
});
