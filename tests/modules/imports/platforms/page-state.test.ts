import { describe, expect, test } from "bun:test";
import {
  cutJsonValue,
  inlineScripts,
  parseLooseJson,
  readScriptAssignment,
} from "../../../../src/modules/imports/platforms/page-state";

describe("parseLooseJson", () => {
  test("bare undefined values become null", () => {
    expect(parseLooseJson('{"a":undefined,"b":[undefined,1],"c":{"d":undefined}}')).toEqual({
      a: null,
      b: [null, 1],
      c: { d: null },
    });
  });

  test("the word undefined inside strings survives, escaped quotes included", () => {
    const text = String.raw`{"desc":"console.log 打印出 undefined 了","q":"say \"undefined\" twice","k":"undefined"}`;
    expect(parseLooseJson(text)).toEqual({
      desc: "console.log 打印出 undefined 了",
      q: 'say "undefined" twice',
      k: "undefined",
    });
  });

  test("keys named undefined are left alone", () => {
    expect(parseLooseJson('{"undefined":{"note":undefined}}')).toEqual({ undefined: { note: null } });
  });
});

describe("cutJsonValue", () => {
  test("stops at the matching bracket, ignoring brackets inside strings", () => {
    const script = 'window.s={"a":"}{][","b":[1,{"c":2}]};(function(){var s;}())';
    expect(cutJsonValue(script, script.indexOf("{"))).toBe('{"a":"}{][","b":[1,{"c":2}]}');
  });

  test("a truncated value yields nothing", () => {
    expect(cutJsonValue('{"a":{"b":1}', 0)).toBeUndefined();
  });
});

describe("readScriptAssignment", () => {
  test("reads the last script that starts with the assignment", () => {
    const html = `<html><head>
      <script>if (window.__INITIAL_STATE__) { console.log("x") }</script>
      <script>window.__INITIAL_STATE__={"v":1}</script>
      </head><body>
      <script type="text/javascript">window.__INITIAL_STATE__={"v":2,"u":undefined};(function(){var s;}())</script>
      <script src="/app.js"></script>
      </body></html>`;
    expect(readScriptAssignment(html, "window.__INITIAL_STATE__")).toEqual({ v: 2, u: null });
  });

  test("accepts spaces around the equals sign", () => {
    const html = "<script>window._ROUTER_DATA = {\"loaderData\":{}}</script>";
    expect(readScriptAssignment(html, "window._ROUTER_DATA")).toEqual({ loaderData: {} });
  });

  test("finds an assignment that is not the script's first statement", () => {
    const html = '<script>var a=1;window.__INITIAL_STATE__={"v":3};</script>';
    expect(readScriptAssignment(html, "window.__INITIAL_STATE__")).toEqual({ v: 3 });
  });

  test("a later script that only compares the name does not hide the assignment", () => {
    const html = '<script>window.__INITIAL_STATE__={"v":4}</script><script>if (window.__INITIAL_STATE__ == null) {}</script>';
    expect(readScriptAssignment(html, "window.__INITIAL_STATE__")).toEqual({ v: 4 });
  });

  test("is undefined when no script assigns the name or the value does not parse", () => {
    expect(readScriptAssignment("<p>no scripts</p>", "window.__INITIAL_STATE__")).toBeUndefined();
    expect(readScriptAssignment('<script>window.__INITIAL_STATE__={"a":</script>', "window.__INITIAL_STATE__")).toBeUndefined();
    expect(readScriptAssignment("<script>window.__INITIAL_STATE__={a:1}</script>", "window.__INITIAL_STATE__")).toBeUndefined();
  });
});

test("inlineScripts keeps attributes so a script can be found by id", () => {
  const scripts = inlineScripts('<script id="RENDER_DATA" type="application/json">%7B%7D</script><script>x</script>');
  expect(scripts).toEqual([
    { attributes: ' id="RENDER_DATA" type="application/json"', text: "%7B%7D" },
    { attributes: "", text: "x" },
  ]);
});
