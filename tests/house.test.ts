// The house stays tidy: no source file grows past what one reading takes in, and dependencies
// inside src/ point one way (an import cycle means two modules that are really one, or a type in
// the wrong room).
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");
const MAX_LINES = 500;

/** Every .ts file under `dir` of `root`, as paths relative to `root`. */
function sourceFiles(root: string, dir = "src"): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts")) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

function lineCount(text: string): number {
  // Counted as `wc -l` does: newline characters.
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The relative specifiers of a file's static imports and re-exports, `import type` included (a lazy `import()` is not a dependency at load time). */
function relativeSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm, /^\s*import\s*["']([^"']+)["']/gm];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      if (match[1]!.startsWith("./") || match[1]!.startsWith("../")) specifiers.push(match[1]!);
    }
  }
  return specifiers;
}

/** The file a relative specifier names, as TypeScript's bundler resolution finds it; undefined outside the tree. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, base.replace(/\.js$/, ".ts"), `${base}/index.ts`];
  return candidates.find((candidate) => fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile());
}

/** Import edges between the .ts files under `dir`. */
function importGraph(root: string, dir = "src"): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root, dir)) {
    const targets = relativeSpecifiers(fs.readFileSync(path.join(root, file), "utf8"))
      .map((specifier) => resolveSpecifier(root, file, specifier))
      .filter((target): target is string => target !== undefined && target.endsWith(".ts"));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** One cycle per back edge met by a depth-first walk, each as the files around it (first file repeated at the end). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  const pathStack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    onPath.set(file, pathStack.length);
    pathStack.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = onPath.get(next);
      if (at !== undefined) cycles.push([...pathStack.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    pathStack.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

describe("the house", () => {
  test(`no source file under src/ is over ${MAX_LINES} lines`, () => {
    const long = sourceFiles(ROOT)
      .map((file) => ({ file, lines: lineCount(fs.readFileSync(path.join(ROOT, file), "utf8")) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  test("no import cycle among the modules of src/", () => {
    const cycles = findCycles(importGraph(ROOT)).map((cycle) => cycle.join(" → "));
    expect(cycles).toEqual([]);
  });

  test("the checks see a cycle, type-only and multi-line imports included, and a long file", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "house-"));
    try {
      fs.mkdirSync(path.join(root, "src/a"), { recursive: true });
      fs.writeFileSync(path.join(root, "src/a/one.ts"), 'import type {\n  Two,\n} from "./two";\nexport type One = Two;\n');
      fs.writeFileSync(path.join(root, "src/a/two.ts"), 'import { three } from "../three";\nexport type Two = string;\n');
      fs.writeFileSync(path.join(root, "src/three.ts"), 'import type { One } from "./a/one";\nexport const three = 3;\n');
      fs.writeFileSync(path.join(root, "src/lazy.ts"), 'export const load = () => import("./three");\n');
      fs.writeFileSync(path.join(root, "src/long.ts"), "//\n".repeat(MAX_LINES + 1));
      expect(findCycles(importGraph(root))).toEqual([["src/a/one.ts", "src/a/two.ts", "src/three.ts", "src/a/one.ts"]]);
      expect(lineCount(fs.readFileSync(path.join(root, "src/long.ts"), "utf8"))).toBe(MAX_LINES + 1);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
