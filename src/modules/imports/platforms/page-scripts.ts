import { type Node, parse, type Token, tokTypes } from "acorn";

/**
 * Reads the values a server-rendered page assigns in its inline scripts — `window.__INITIAL_STATE__
 * = {…}` (Xiaohongshu, Bilibili), `window._ROUTER_DATA = {…}` (Douyin), `var msg_title = '…'`,
 * `window.cgiDataNew = {title: JsDecode('…')}` (WeChat) — by parsing them with acorn and turning
 * only literal syntax into data. Scripts are never run: anything computed is left out.
 */

/** Page state is at most a few MiB; a larger inline script is not worth parsing. */
const MAX_SCRIPT_CHARS = 8 * 1024 * 1024;
/** Real page data nests a few dozen levels; deeper brackets are a page trying to exhaust the stack. */
const MAX_NESTING = 256;

const OPENERS = new Set([tokTypes.braceL, tokTypes.bracketL, tokTypes.parenL, tokTypes.dollarBraceL]);
const CLOSERS = new Set([tokTypes.braceR, tokTypes.bracketR, tokTypes.parenR]);

/** Functions pages wrap literal strings in; their argument is the value as written. */
const STRING_WRAPPERS = new Set(["JsDecode", "htmlDecode"]);

interface InlineScript {
  text: string;
  module: boolean;
}

/** The document's inline scripts, in document order. */
function inlineScripts(document: Document): InlineScript[] {
  return Array.from(document.querySelectorAll("script"))
    .filter((script) => !script.hasAttribute("src"))
    .map((script) => ({
      text: script.textContent ?? "",
      module: script.getAttribute("type")?.trim().toLowerCase() === "module",
    }));
}

/**
 * The literal value each of `names` is last given in the document's inline scripts, by `var name =`,
 * `name =`, `window.name =` or `window["name"] =`, as a page would hold it once its scripts ran.
 * A script that does not parse (broken, not JavaScript, too deep) is skipped; a name assigned only
 * computed values is absent.
 */
export function readScriptAssignments(document: Document, names: readonly string[]): Map<string, unknown> {
  const wanted = new Set(names);
  const values = new Map<string, unknown>();
  for (const { text, module } of inlineScripts(document)) {
    if (text.length > MAX_SCRIPT_CHARS || !names.some((name) => text.includes(name))) continue;
    const program = parseScript(text, module);
    if (!program) continue;
    for (const [name, value] of assignmentsIn(program, wanted)) values.set(name, value);
  }
  return values;
}

/** A string as written, or a number as its digits (`"1762747210" * 1`); undefined otherwise. */
export function stringValue(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function parseScript(text: string, module: boolean): Node | undefined {
  let depth = 0;
  const onToken = (token: Token) => {
    if (OPENERS.has(token.type)) depth += 1;
    else if (CLOSERS.has(token.type)) depth -= 1;
    if (depth > MAX_NESTING) throw new RangeError("script nested too deeply");
  };
  try {
    return parse(text, {
      ecmaVersion: "latest",
      sourceType: module ? "module" : "script",
      allowReturnOutsideFunction: !module,
      allowHashBang: true,
      onToken,
    });
  } catch {
    // Broken, truncated, not JavaScript at all (templates, JSON blocks), or hostile.
    return undefined;
  }
}

/** The assignments to wanted names with literal values, in source order. */
function assignmentsIn(program: Node, wanted: Set<string>): [string, unknown][] {
  const found: { start: number; name: string; value: unknown }[] = [];
  // Iterative: a script's syntax tree can be far deeper than the call stack allows to recurse.
  const pending: Node[] = [program];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const assignment = assignmentOf(node);
    if (assignment && wanted.has(assignment.name)) {
      const value = literalValue(assignment.value, 0);
      if (value !== ABSENT) found.push({ start: node.start, name: assignment.name, value });
    }
    for (const child of childNodes(node)) pending.push(child);
  }
  return found.sort((a, b) => a.start - b.start).map(({ name, value }) => [name, value]);
}

function assignmentOf(node: Node): { name: string; value: Node } | undefined {
  if (node.type === "VariableDeclarator") {
    const { id, init } = node as unknown as { id: Node; init: Node | null };
    return init && id.type === "Identifier" ? { name: (id as unknown as { name: string }).name, value: init } : undefined;
  }
  if (node.type === "AssignmentExpression") {
    const { operator, left, right } = node as unknown as { operator: string; left: Node; right: Node };
    const name = operator === "=" ? targetName(left) : undefined;
    return name === undefined ? undefined : { name, value: right };
  }
  return undefined;
}

/** `name` for `name`, `window.name` and `window["name"]`. */
function targetName(node: Node): string | undefined {
  if (node.type === "Identifier") return (node as unknown as { name: string }).name;
  if (node.type !== "MemberExpression") return undefined;
  const { object, property, computed } = node as unknown as { object: Node; property: Node; computed: boolean };
  if (object.type !== "Identifier" || (object as unknown as { name: string }).name !== "window") return undefined;
  if (!computed && property.type === "Identifier") return (property as unknown as { name: string }).name;
  const key = computed && property.type === "Literal" ? (property as unknown as { value: unknown }).value : undefined;
  return typeof key === "string" ? key : undefined;
}

function childNodes(node: Node): Node[] {
  const children: Node[] = [];
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item);
    } else if (isNode(value)) children.push(value);
  }
  // Reversed so the stack visits them in source order (the sort keeps order regardless).
  return children.reverse();
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** Marks syntax that is not a literal: left out of the data, never evaluated. */
const ABSENT: unique symbol = Symbol("absent");

type Literal = string | number | boolean | null | undefined | Literal[] | { [key: string]: Literal };

/** Literal syntax as data: strings, numbers, booleans, null, `undefined`, arrays and objects. */
function literalValue(node: Node, depth: number): Literal | typeof ABSENT {
  if (depth > MAX_NESTING) return ABSENT;
  const n = node as unknown as Record<string, unknown>;
  switch (node.type) {
    case "Literal": {
      const value = n.value;
      // Regular expressions and bigints are not data.
      return n.regex || n.bigint !== undefined ? ABSENT : (value as string | number | boolean | null);
    }
    case "TemplateLiteral": {
      const quasis = n.quasis as { value: { cooked?: string | null } }[];
      const cooked = (n.expressions as Node[]).length === 0 ? quasis[0]?.value.cooked : undefined;
      return typeof cooked === "string" ? cooked : ABSENT;
    }
    case "Identifier":
      return n.name === "undefined" ? undefined : ABSENT;
    case "UnaryExpression":
      return unaryValue(n.operator as string, n.argument as Node);
    case "ArrayExpression": {
      // Non-literal items stay as undefined so the others keep their positions.
      return (n.elements as (Node | null)[]).map((element) => {
        const value = element ? literalValue(element, depth + 1) : undefined;
        return value === ABSENT ? undefined : value;
      });
    }
    case "ObjectExpression":
      return objectValue(n.properties as Node[], depth);
    case "CallExpression":
      return wrappedString(n.callee as Node, n.arguments as Node[], depth);
    case "LogicalExpression": {
      // WeChat writes `'…' || ''`: the fallback only counts when the first value is empty.
      if (n.operator !== "||") return ABSENT;
      const left = literalValue(n.left as Node, depth + 1);
      return left === ABSENT || left ? left : literalValue(n.right as Node, depth + 1);
    }
    case "BinaryExpression": {
      // WeChat writes `"1762747210" * 1` for a number.
      const right = n.right as Node & { value?: unknown };
      if (n.operator !== "*" || right.type !== "Literal" || right.value !== 1) return ABSENT;
      const left = literalValue(n.left as Node, depth + 1);
      const number = typeof left === "string" && left.trim() !== "" ? Number(left) : left;
      return typeof number === "number" && Number.isFinite(number) ? number : ABSENT;
    }
    case "AssignmentExpression":
      // `window.msg_title = window.title = '…'`
      return n.operator === "=" ? literalValue(n.right as Node, depth + 1) : ABSENT;
    default:
      return ABSENT;
  }
}

/** `!0`/`!1` (minified booleans), signed numbers, and `void 0`. */
function unaryValue(operator: string, argument: Node): Literal | typeof ABSENT {
  const value = argument.type === "Literal" ? (argument as unknown as { value: unknown }).value : ABSENT;
  if (operator === "void") return undefined;
  if (typeof value !== "number") return ABSENT;
  if (operator === "!") return !value;
  if (operator === "-") return -value;
  if (operator === "+") return value;
  return ABSENT;
}

function objectValue(properties: Node[], depth: number): Literal | typeof ABSENT {
  const object: { [key: string]: Literal } = {};
  for (const property of properties) {
    const p = property as unknown as { type: string; kind: string; computed: boolean; key: Node; value: Node };
    if (p.type !== "Property" || p.kind !== "init") continue;
    const key = propertyKey(p.key, p.computed);
    if (key === undefined) continue;
    const value = literalValue(p.value, depth + 1);
    if (value === ABSENT) continue;
    // defineProperty, not assignment: a `__proto__` key must stay data, not become a prototype.
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

function propertyKey(key: Node, computed: boolean): string | undefined {
  if (key.type === "Identifier" && !computed) return (key as unknown as { name: string }).name;
  if (key.type !== "Literal") return undefined;
  const value = (key as unknown as { value: unknown }).value;
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/** `JsDecode('…')`, `htmlDecode("…")` and WeChat's `'…'.html(false)`: the string as written. */
function wrappedString(callee: Node, args: Node[], depth: number): Literal | typeof ABSENT {
  const c = callee as unknown as { type: string; name?: string; object?: Node; property?: Node; computed?: boolean };
  let inner: Node | undefined;
  if (c.type === "Identifier" && STRING_WRAPPERS.has(c.name ?? "") && args.length === 1) inner = args[0];
  else if (c.type === "MemberExpression" && !c.computed && (c.property as { name?: string } | undefined)?.name === "html") {
    inner = c.object;
  }
  const value = inner ? literalValue(inner, depth + 1) : ABSENT;
  return typeof value === "string" ? value : ABSENT;
}
