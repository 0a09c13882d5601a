import dns, { type LookupAddress } from "node:dns";
import ipaddr from "ipaddr.js";

/** Host name (lower case, or "*" for every other name) → the address it is pinned to. */
export type ResolveOverrides = ReadonlyMap<string, string>;

/**
 * `IMPORT_RESOLVE`: host names pinned to addresses, as curl's `--resolve` does, e.g.
 * `mp.weixin.qq.com=10.0.0.5,*=127.0.0.1` (a local mirror; tests keep every fetch on loopback).
 * The address rules still apply to the pinned address.
 */
export function parseResolveOverrides(value: string): ResolveOverrides {
  const overrides = new Map<string, string>();
  for (const pair of value.split(",").map((part) => part.trim()).filter(Boolean)) {
    const at = pair.indexOf("=");
    const host = pair.slice(0, at).trim().toLowerCase();
    const address = pair.slice(at + 1).trim();
    if (at <= 0 || !/^(?:\*|[a-z0-9.-]+)$/.test(host) || !ipaddr.isValid(address)) {
      throw new Error(`"${pair}" is not host=address (e.g. mp.weixin.qq.com=10.0.0.5 or *=127.0.0.1)`);
    }
    overrides.set(host, address);
  }
  return overrides;
}

/** Resolves pinned names to their address and every other name through the system resolver. */
export function resolverWith(overrides: ResolveOverrides): (hostname: string) => Promise<LookupAddress[]> {
  return async (hostname) => {
    const pinned = overrides.get(hostname.toLowerCase()) ?? overrides.get("*");
    if (pinned === undefined) return dns.promises.lookup(hostname, { all: true });
    return [{ address: pinned, family: ipaddr.parse(pinned).kind() === "ipv6" ? 6 : 4 }];
  };
}
