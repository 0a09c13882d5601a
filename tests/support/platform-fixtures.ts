import { readFileSync } from "node:fs";
import path from "node:path";

const PLATFORMS = path.resolve(import.meta.dir, "../fixtures/platforms");

/** A recorded page or API answer under tests/fixtures/platforms: `readFixture("wechat", "article.html")` or `readFixture("wechat/article.html")`. */
export function readFixture(...file: string[]): string {
  return readFileSync(path.join(PLATFORMS, ...file), "utf8");
}
