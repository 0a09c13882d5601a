import { describe, expect, test } from "bun:test";
import { cookieValue, pageCookie, pageCookieName } from "../../src/oauth/page-cookies";

describe("the authorization page's cookies", () => {
  test("over https each is a __Host- cookie: Secure, for the whole origin, no Domain, HttpOnly", () => {
    const cookie = pageCookie("rhizome_oauth_csrf", "v", { publicUrl: "https://notes.example.com", maxAgeSeconds: 60, sameSite: "Strict" });
    expect(cookie).toBe("__Host-rhizome_oauth_csrf=v; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=60");
    expect(pageCookieName("rhizome_oauth_login", "https://notes.example.com")).toBe("__Host-rhizome_oauth_login");
  });

  test("over plain http (no __Host- without Secure) each is kept to /oauth", () => {
    expect(pageCookie("rhizome_oauth_login", "v", { publicUrl: "http://127.0.0.1:8080", maxAgeSeconds: 600, sameSite: "Lax" })).toBe(
      "rhizome_oauth_login=v; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=600",
    );
    expect(pageCookieName("rhizome_oauth_login", "http://127.0.0.1:8080")).toBe("rhizome_oauth_login");
  });

  test("a cookie is read by its exact name: the unprefixed one does not stand in for the __Host- one", () => {
    const request = new Request("https://notes.example.com/oauth/authorize", { headers: { cookie: "rhizome_oauth_login=planted; other=x=y" } });
    expect(cookieValue(request, "__Host-rhizome_oauth_login")).toBeNull();
    expect(cookieValue(request, "rhizome_oauth_login")).toBe("planted");
    expect(cookieValue(request, "other")).toBe("x=y");
    expect(cookieValue(new Request("https://notes.example.com/"), "other")).toBeNull();
  });
});
