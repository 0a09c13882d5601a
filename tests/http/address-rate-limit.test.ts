// The per-address token bucket in front of the public share pages, on a clock the test moves.
import { describe, expect, test } from "bun:test";
import { AddressRateLimit } from "../../src/http/address-rate-limit";

describe("a rate limit per client address", () => {
  test("allows the burst, then refuses with the seconds until the next request is allowed, and refills with time", () => {
    let now = 1_000_000;
    const limit = new AddressRateLimit({ burst: 3, perSecond: 0.5 }, () => now);
    expect([limit.take("192.0.2.1"), limit.take("192.0.2.1"), limit.take("192.0.2.1")]).toEqual([null, null, null]);
    expect(limit.take("192.0.2.1")).toBe(2);
    expect(limit.take("192.0.2.2")).toBeNull();
    now += 1000;
    expect(limit.take("192.0.2.1")).toBe(1);
    now += 1000;
    expect(limit.take("192.0.2.1")).toBeNull();
    expect(limit.take("192.0.2.1")).toBe(2);
    now += 60_000;
    expect([limit.take("192.0.2.1"), limit.take("192.0.2.1"), limit.take("192.0.2.1"), limit.take("192.0.2.1")]).toEqual([null, null, null, 2]);
  });

  test("an IPv6 /64 is one client; an IPv4-mapped address is its IPv4 address", () => {
    const limit = new AddressRateLimit({ burst: 1, perSecond: 1 }, () => 0);
    expect(limit.take("2001:db8:1:2::1")).toBeNull();
    expect(limit.take("2001:db8:1:2:ffff::9")).toBe(1);
    expect(limit.take("2001:db8:1:3::1")).toBeNull();
    expect(limit.take("198.51.100.7")).toBeNull();
    expect(limit.take("::ffff:198.51.100.7")).toBe(1);
  });
});
