import { describe, expect, test } from "bun:test";
import { parseHtmlDocument } from "../../../../src/modules/imports/html-to-markdown";
import { readScriptAssignments, stringValue } from "../../../../src/modules/imports/platforms/page-scripts";

/** The values `names` get in a page made of these script bodies (or raw HTML). */
function read(html: string, names: string[]): Map<string, unknown> {
  return readScriptAssignments(parseHtmlDocument(html), names);
}
const script = (body: string) => `<script>${body}</script>`;
const valueOf = (body: string, name = "v") => read(script(body), [name]).get(name);

describe("string literals, decoded as JavaScript reads them", () => {
  test("\\x, \\u, \\u{}, \\/ and the one-letter escapes", () => {
    const source = String.raw`var v = 'a\x3cb\u003c\u4e2d\u{1F600}\/\n\t\'q\' \\ "';`;
    expect(valueOf(source)).toBe("a<b<中😀/\n\t'q' \\ \"");
  });

  test("double quotes, line continuations and a template without expressions", () => {
    expect(valueOf(String.raw`var v = "one \"two\" \
three";`)).toBe('one "two" three');
    expect(valueOf("var v = `中\\x26文`;")).toBe("中&文");
  });

  test("a script-ending tag written as <\\/script> inside a string", () => {
    expect(valueOf(String.raw`window.v = "<p>x<\/p><\/script>";`)).toBe("<p>x</p></script>");
  });
});

describe("literal data", () => {
  test("nested objects and arrays, quoted and numeric keys, as JSON.parse would give them", () => {
    const state = { a: { b: [1, { c: "d" }, [true, false, null]], "e-f": -2.5 }, 7: "seven" };
    expect(valueOf(`window.v = ${JSON.stringify(state)};`)).toEqual(JSON.parse(JSON.stringify(state)));
    expect(valueOf(`window.v = {plain: 'single', 'quoted': "double", 3: 0x10};`)).toEqual({
      plain: "single",
      quoted: "double",
      "3": 16,
    });
  });

  test("minified booleans !0 and !1, undefined and void 0", () => {
    expect(valueOf("var v = {yes: !0, no: !1, none: undefined, gone: void 0, list: [undefined, 1]};")).toEqual({
      yes: true,
      no: false,
      none: undefined,
      gone: undefined,
      list: [undefined, 1],
    });
  });

  test("the word undefined inside strings is text", () => {
    expect(valueOf('window.v = {"desc":"打印出 undefined 了","k":"undefined","u":undefined};')).toEqual({
      desc: "打印出 undefined 了",
      k: "undefined",
      u: undefined,
    });
  });

  test("a __proto__ key is data, not a prototype", () => {
    const value = valueOf('window.v = {"__proto__": {"polluted": true}};') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("computed values are left out, never run", () => {
    const body = `
      window.v = {
        keep: 'yes',
        call: (function () { globalThis.__pageScriptRan = true; return 1; })(),
        name: someVariable,
        sum: 1 + 1,
        template: \`a\${b}\`,
        pick: a ? 'b' : 'c',
        get getter() { return 1; },
        method() {},
        ...spread,
        regex: /x/g,
        list: ['a', f(), 'c'],
      };`;
    expect(valueOf(body)).toEqual({ keep: "yes", list: ["a", undefined, "c"] });
    expect((globalThis as Record<string, unknown>).__pageScriptRan).toBeUndefined();
    expect(read(script("var v = compute();"), ["v"]).has("v")).toBe(false);
  });
});

describe("how WeChat writes its values", () => {
  test("JsDecode(…), htmlDecode(…) and '…'.html(false) give the string as written", () => {
    const values = read(
      script(`var a = htmlDecode("A &amp; B"); var b = '标题'.html(false); window.c = {t: JsDecode('36\\x26amp;氪')};`),
      ["a", "b", "c"],
    );
    expect(values.get("a")).toBe("A &amp; B");
    expect(values.get("b")).toBe("标题");
    expect(values.get("c")).toEqual({ t: "36&amp;氪" });
  });

  test("`'…' || ''` falls back only when empty, `\"…\" * 1` is a number, chains assign both", () => {
    const values = read(
      script(`window.ct = '1762338600' || ''; window.e = '' || 'fallback'; var n = "1762747210" * 1; window.m = window.t = '题';`),
      ["ct", "e", "n", "m", "t"],
    );
    expect(values.get("ct")).toBe("1762338600");
    expect(values.get("e")).toBe("fallback");
    expect(values.get("n")).toBe(1762747210);
    expect(stringValue(values.get("n"))).toBe("1762747210");
    expect(values.get("m")).toBe("题");
    expect(values.get("t")).toBe("题");
  });
});

describe("finding assignments", () => {
  test("`var`, bare, `window.` and `window[\"…\"]` assignments, in nested scopes too", () => {
    const values = read(
      script(`var a = 1; b = 2; window.c = 3; window["d"] = 4; (function () { var e = 5; })(); let f = 6, g = 7;`),
      ["a", "b", "c", "d", "e", "f", "g"],
    );
    expect(Object.fromEntries(values)).toEqual({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 });
  });

  test("look-alikes are not assignments: properties, comparisons, other objects, other names", () => {
    const values = read(
      script(`var ctx = "no"; var obj = { ct: "no" }; if (ct == "no") {} other.ct = "no"; ct += "no"; window.__INITIAL_STATE__;`),
      ["ct", "__INITIAL_STATE__"],
    );
    expect(values.size).toBe(0);
  });

  test("the last literal assignment wins, across scripts; a later computed one does not erase it", () => {
    const html = `<html><head>${script('window.__INITIAL_STATE__={"v":1}')}</head><body>
      ${script('window.__INITIAL_STATE__={"v":2,"u":undefined};(function(){var s;}())')}
      ${script("if (window.__INITIAL_STATE__) { window.__INITIAL_STATE__ = load(); }")}
      <script src="/app.js"></script></body></html>`;
    expect(read(html, ["__INITIAL_STATE__"]).get("__INITIAL_STATE__")).toEqual({ v: 2, u: undefined });
  });

  test("only the names asked for are read", () => {
    expect([...read(script("var a = 1, b = 2;"), ["b"]).keys()]).toEqual(["b"]);
  });
});

describe("scripts that are not JavaScript, or are broken", () => {
  test("templates, JSON blocks, truncated and broken scripts are skipped; the value is found elsewhere", () => {
    const html = [
      '<script type="text/template"><div class="{{v}}">v = {{v}}</div></script>',
      '<script type="application/json">{"v": "json"}</script>',
      script("window.v = {'a': 1"),
      script("var v = 'unterminated\n"),
      script("<!-- \nwindow.v = 'found';\n-->"),
      script("window.v = {a: @@@};"),
    ].join("");
    expect(read(html, ["v"]).get("v")).toBe("found");
  });

  test("a module script is read as a module", () => {
    const html = `<script type="module">import { boot } from "/app.js"; window.v = { ready: !0 }; boot();</script>`;
    expect(read(html, ["v"]).get("v")).toEqual({ ready: true });
  });

  test("a page with no scripts, or none that assign the name, gives nothing", () => {
    expect(read("<p>no scripts</p>", ["v"]).size).toBe(0);
    expect(read(script("console.log(v)"), ["v"]).size).toBe(0);
  });
});

describe("hostile scripts are bounded", () => {
  test("brackets nested 100,000 deep are skipped without exhausting the stack", () => {
    const deep = script(`window.v = ${"[".repeat(100_000)}${"]".repeat(100_000)};`);
    const open = script(`window.v = ${"{a:".repeat(100_000)}`);
    expect(read(deep + open + script("window.v = 'ok';"), ["v"]).get("v")).toBe("ok");
  });

  test("arrays nested just past the limit are skipped, real nesting is read", () => {
    expect(valueOf(`window.v = ${"[".repeat(300)}1${"]".repeat(300)};`)).toBeUndefined();
    expect(valueOf(`window.v = ${"[".repeat(30)}1${"]".repeat(30)};`)).toEqual(JSON.parse(`${"[".repeat(30)}1${"]".repeat(30)}`));
  });

  test("long operator chains do not recurse without bound", () => {
    const unary = script(`window.v = ${"-".repeat(200_000)}1;`);
    const logical = script(`window.w = ${"'' || ".repeat(100_000)}'end';`);
    const values = read(unary + logical + script("window.x = 1;"), ["v", "w", "x"]);
    expect(values.get("x")).toBe(1);
    expect(values.has("v")).toBe(false);
    expect(values.has("w")).toBe(false);
  });

  test("a script larger than any page state is not parsed; a large state is", () => {
    const state = { items: Array.from({ length: 20_000 }, (_, index) => ({ id: index, text: "内容".repeat(10) })) };
    const huge = script(`window.v = '${"x".repeat(9 * 1024 * 1024)}';`);
    const values = read(huge + script(`window.w = ${JSON.stringify(state)};`), ["v", "w"]);
    expect(values.has("v")).toBe(false);
    expect(values.get("w")).toEqual(state);
  });
});
