import { describe, expect, test } from "bun:test";
import {
  arrayItems,
  assignedString,
  assignedValue,
  decodeHtmlEntities,
  isoFromUnixSeconds,
  propertyString,
  propertyValue,
  readJsString,
} from "../../../../src/modules/imports/platforms/wechat/script-values";

describe("reading JS string literals without running them", () => {
  test("decodes \\x, \\u, \\u{} and simple escapes", () => {
    const source = String.raw`'a\x26b\u4e2d\u{1F600}\n\t\'q\' \\ "'`;
    expect(readJsString(source, 0)).toEqual({ value: "a&b中😀\n\t'q' \\ \"", end: source.length });
  });

  test("an unterminated literal, or one broken by a raw newline, is null", () => {
    expect(readJsString("'never closes", 0)).toBeNull();
    expect(readJsString("'line\nbreak'", 0)).toBeNull();
  });

  test("malformed escapes are kept as text instead of throwing", () => {
    expect(readJsString(String.raw`"\xZZ\u12"`, 0)?.value).toBe("xZZu12");
  });
});

describe("finding values in inline scripts", () => {
  const scripts = `
    var ctx = "nope";
    var obj = { ct: "not an assignment" };
    window.ct = '1762338600' || '';
    var nickname = htmlDecode("A &amp; B");
    var count = "3" * 1;
    window.cgiDataNew = {
      // a comment with a quote: don't trip
      title: JsDecode('外层标题'),
      "nick_name": JsDecode('36\\x26amp;氪'),
      ip_wording: { title: JsDecode('内层'), province_name: '北京' },
      picture_page_info_list: [
        { cdn_url: 'https://one', watermark_info: { cdn_url: 'https://watermark' } },
        { width: 10, cdn_url: "https://two" }
      ],
    };`;

  test("finds `var`, `window.` and bare assignments, skipping look-alikes", () => {
    expect(assignedString(scripts, "ct")).toBe("1762338600");
    expect(assignedString(scripts, "nickname")).toBe("A &amp; B");
    expect(assignedString(scripts, "count")).toBe("3");
    expect(assignedString(scripts, "missing")).toBeUndefined();
  });

  test("reads only an object's direct properties, quoted keys included", () => {
    const cgi = assignedValue(scripts, "cgiDataNew");
    expect(cgi?.kind).toBe("literal");
    const source = cgi?.kind === "literal" ? cgi.source : "";
    expect(propertyString(source, "title")).toBe("外层标题");
    expect(decodeHtmlEntities(propertyString(source, "nick_name") ?? "")).toBe("36&氪");
    expect(propertyString(source, "province_name")).toBeUndefined();
  });

  test("lists array items, so nested cdn_urls are not taken for pictures", () => {
    const cgi = assignedValue(scripts, "cgiDataNew");
    const source = cgi?.kind === "literal" ? cgi.source : "";
    const list = propertyValue(source, "picture_page_info_list");
    const items = list?.kind === "literal" ? arrayItems(list.source) : [];
    expect(items.map((item) => propertyString(item, "cdn_url"))).toEqual(["https://one", "https://two"]);
  });
});

describe("decoding entities and times", () => {
  test("decodes named, decimal and hex entities, and double escaping", () => {
    expect(decodeHtmlEntities("&quot;a&quot; &#39;b&#39; &#x4e2d; &amp;amp; &bogus;")).toBe(`"a" 'b' 中 & &bogus;`);
  });

  test("unix seconds become ISO 8601 only when plausible", () => {
    expect(isoFromUnixSeconds("1762747210")).toBe("2025-11-10T04:00:10.000Z");
    expect(isoFromUnixSeconds("99999999999")).toBeUndefined();
    expect(isoFromUnixSeconds("")).toBeUndefined();
    expect(isoFromUnixSeconds("17627x7210")).toBeUndefined();
  });
});
