// The README and docs/ stay navigable: every relative link leads to a file that exists (and to a
// heading of it, for a #fragment), and every `npm run <script>` they tell a reader to type exists.
import { describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(import.meta.dir, "..");

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
function documentationFiles(root = ROOT): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith(".md")) found.push(relative);
    }
  };
  if (fs.existsSync(path.join(root, "docs"))) walk("docs");
  return found;
}

/** The text outside fenced code blocks, line by line (blank lines stand in for fenced ones, so line numbers hold). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return "";
    }
    if (marker) {
      fence = marker;
      return "";
    }
    return line;
  });
}

/** A line without its inline code spans (a link written as code is an example, not a link). */
const withoutCodeSpans = (line: string) => line.replace(/(`+)[\s\S]*?\1/g, "");

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/[`*]/g, "");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** Link targets of Markdown links and images, reference definitions, and HTML `src`/`href` attributes. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((raw, index) => {
    const line = withoutCodeSpans(raw);
    const add = (target: string) => links.push({ line: index + 1, target: target.trim().replace(/^<(.*)>$/, "$1") });
    for (const match of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) add(match[1]!);
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (definition) add(definition[1]!);
    for (const match of line.matchAll(/<(?:img|a)\b[^>]*?\s(?:src|href)="([^"]+)"/gi)) add(match[1]!);
  });
  return links;
}

/** Every `npm run <script>` named, in prose and in code blocks alike (that is where readers copy them from). */
function npmScriptsNamed(markdown: string): { line: number; script: string }[] {
  const named: { line: number; script: string }[] = [];
  markdown.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(/\bnpm run(?:-script)? ([A-Za-z0-9:_.-]+)/g)) named.push({ line: index + 1, script: match[1]! });
  });
  return named;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");

/** What is wrong with the documentation under `root`: one line per broken link or unknown script. */
function documentationProblems(root = ROOT): string[] {
  const problems: string[] = [];
  const scripts = new Set(Object.keys((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts));
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(fs.readFileSync(path.join(root, file), "utf8")));
    return anchorsOf.get(file)!;
  };
  for (const file of documentationFiles(root)) {
    const markdown = fs.readFileSync(path.join(root, file), "utf8");
    for (const { line, target } of linksOf(markdown)) {
      if (isExternal(target)) continue;
      const [pathPart = "", fragment] = target.split("#", 2) as [string, string | undefined];
      const linked = pathPart === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
      const where = `${file}:${line}: ${target}`;
      if (linked.startsWith("../") || path.posix.isAbsolute(linked)) {
        problems.push(`${where} leaves the repository`);
        continue;
      }
      if (!fs.existsSync(path.join(root, linked))) {
        problems.push(`${where} names ${linked}, which does not exist`);
        continue;
      }
      if (fragment !== undefined && linked.endsWith(".md") && !anchors(linked).has(decodeURIComponent(fragment).toLowerCase())) {
        problems.push(`${where} names a heading ${linked} does not have (#${fragment})`);
      }
    }
    for (const { line, script } of npmScriptsNamed(markdown)) {
      if (!scripts.has(script)) problems.push(`${file}:${line}: npm run ${script} is not a script of package.json`);
    }
  }
  return problems;
}

describe("the documentation", () => {
  test("README.md and docs/ exist, and the README stays short", () => {
    const files = documentationFiles();
    expect(files.length).toBeGreaterThan(10);
    expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(300);
  });

  test("every relative link leads to a file, and every #fragment to one of its headings; every npm run names a script", () => {
    expect(documentationProblems()).toEqual([]);
  });
});

describe("the documentation check", () => {
  const scratch = () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "rhizome-docs-check-"));
    fs.mkdirSync(path.join(root, "docs/images"), { recursive: true });
    fs.writeFileSync(path.join(root, "package.json"), JSON.stringify({ scripts: { start: "x", "docs:screenshots": "y", "bench:semantic": "z" } }));
    fs.writeFileSync(path.join(root, "docs/images/app.png"), "");
    fs.writeFileSync(
      path.join(root, "docs/guide.md"),
      ["# Guide", "", "## Search by meaning (`npm run bench:semantic`)", "", "## Notes", "", "## Notes", ""].join("\n"),
    );
    return root;
  };
  const check = (readme: string) => {
    const root = scratch();
    try {
      fs.writeFileSync(path.join(root, "README.md"), readme);
      return documentationProblems(root);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  };

  test("finds files, headings as GitHub names them, pictures and HTML images", () => {
    expect(
      check(
        [
          "[guide](docs/guide.md), [its part](docs/guide.md#search-by-meaning-npm-run-benchsemantic), [again](docs/guide.md#notes-1)",
          "![app](docs/images/app.png) <img src=\"docs/images/app.png\" width=\"10\"> [site](https://example.com/x.md)",
          "[top](#readme-heading)",
          "# Readme heading",
          "npm run docs:screenshots",
        ].join("\n"),
      ),
    ).toEqual([]);
  });

  test("reports a missing file, a missing heading, a missing picture and an unknown script, with where they are", () => {
    expect(
      check(["[gone](docs/gone.md)", "[no part](docs/guide.md#feeds)", '<img src="docs/images/none.png">', "Run `npm run bench:nothing`."].join("\n")),
    ).toEqual([
      "README.md:1: docs/gone.md names docs/gone.md, which does not exist",
      "README.md:2: docs/guide.md#feeds names a heading docs/guide.md does not have (#feeds)",
      "README.md:3: docs/images/none.png names docs/images/none.png, which does not exist",
      "README.md:4: npm run bench:nothing is not a script of package.json",
    ]);
  });

  test("links inside code are examples, not links", () => {
    expect(check(["`[x](docs/gone.md)`", "```", "[y](docs/gone.md)", "```"].join("\n"))).toEqual([]);
  });
});
