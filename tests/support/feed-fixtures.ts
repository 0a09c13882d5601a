import { readFileSync } from "node:fs";
import path from "node:path";

const FEEDS = path.resolve(import.meta.dir, "../fixtures/feeds");

/** A feed, page or OPML document under tests/fixtures/feeds, shaped like the real ones of its kind. */
export function readFeedFixture(name: string): string {
  return readFileSync(path.join(FEEDS, name), "utf8");
}
