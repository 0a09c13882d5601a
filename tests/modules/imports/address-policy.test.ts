import { describe, expect, test } from "bun:test";
import { classifyAddress, ipLiteralOf } from "../../../src/modules/imports/address-policy";

describe("classifyAddress", () => {
  const refused: [string, RegExp][] = [
    ["0.0.0.0", /unspecified/],
    ["0.1.2.3", /unspecified/],
    ["10.0.0.5", /private/],
    ["100.64.0.1", /carrier-grade NAT/],
    ["100.100.100.200", /carrier-grade NAT/],
    ["100.127.255.255", /carrier-grade NAT/],
    ["127.0.0.1", /loopback/],
    ["127.255.255.254", /loopback/],
    ["169.254.169.254", /link-local/],
    ["172.16.0.1", /private/],
    ["172.31.255.255", /private/],
    ["192.168.1.1", /private/],
    ["192.0.0.8", /reserved/],
    ["198.18.0.1", /reserved/],
    ["198.19.255.255", /reserved/],
    ["224.0.0.1", /multicast/],
    ["239.255.255.250", /multicast/],
    ["240.0.0.1", /reserved/],
    ["255.255.255.255", /broadcast/],
    ["::", /unspecified/],
    ["::1", /loopback/],
    ["fc00::1", /unique-local/],
    ["fd12:3456::1", /unique-local/],
    ["fe80::1", /link-local/],
    ["fe80::1%eth0", /link-local/],
    ["fec0::1", /site-local/],
    ["ff02::1", /multicast/],
    ["::ffff:127.0.0.1", /loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
    ["::ffff:7f00:1", /loopback/],
    ["::ffff:10.0.0.5", /private/],
    ["::ffff:169.254.169.254", /link-local/],
    ["::ffff:0:127.0.0.1", /loopback/],
    ["64:ff9b::127.0.0.1", /loopback address \(NAT64 of 127\.0\.0\.1\)/],
    ["64:ff9b:1::1", /reserved/],
    ["2002:a00:5::1", /private address \(6to4 of 10\.0\.0\.5\)/],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", /Teredo/],
    ["::7f00:1", /reserved/],
    ["::127.0.0.1", /loopback|reserved/],
    ["2001:db8::1", /reserved/],
    ["not an address", /not a valid IP address/],
    ["", /not a valid IP address/],
  ];

  test.each(refused)("%s is not public", (address, description) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    expect(verdict.description).toMatch(description);
  });

  const allowed = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.1",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ];

  test.each(allowed)("%s is public", (address) => {
    expect(classifyAddress(address)).toEqual({ public: true, description: "a public address" });
  });
});

describe("ipLiteralOf", () => {
  test("WHATWG-normalised IPv4 hosts are literals", () => {
    for (const url of ["http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0.0.0.0/"]) {
      expect(ipLiteralOf(new URL(url).hostname)).toMatch(/^(127\.0\.0\.1|0\.0\.0\.0)$/);
    }
  });

  test("bracketed IPv6 hosts are literals without the brackets", () => {
    expect(ipLiteralOf(new URL("http://[::1]/").hostname)).toBe("::1");
    expect(ipLiteralOf(new URL("http://[::ffff:127.0.0.1]/").hostname)).toBe("::ffff:7f00:1");
  });

  test("host names are not literals", () => {
    expect(ipLiteralOf("example.com")).toBeNull();
    expect(ipLiteralOf("127.0.0.1.nip.io")).toBeNull();
    expect(ipLiteralOf("localhost")).toBeNull();
  });
});
