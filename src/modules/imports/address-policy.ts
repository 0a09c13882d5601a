import ipaddr from "ipaddr.js";

/** Whether an import may connect to an address, and how to name it in an error. */
export interface AddressClass {
  public: boolean;
  /** Reads after "<address> is …", e.g. "a loopback address". */
  description: string;
}

const PUBLIC: AddressClass = { public: true, description: "a public address" };

const IPV4_RANGES: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
};

const IPV6_RANGES: Record<string, string> = {
  unspecified: "an unspecified address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  loopback: "a loopback address",
  uniqueLocal: "a unique-local (private) address",
  deprecatedSiteLocal: "a site-local (private) address",
  teredo: "a Teredo tunnel address",
};

// Only 2000::/3 is allocated global unicast; this also refuses IPv4-compatible ::a.b.c.d.
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/** Classify one IP address (v4 or v6, without brackets); anything unparsable is not public. */
export function classifyAddress(address: string): AddressClass {
  if (!ipaddr.isValid(address)) return { public: false, description: "not a valid IP address" };
  const parsed = ipaddr.parse(address);
  return parsed.kind() === "ipv4"
    ? classifyIPv4(parsed as ipaddr.IPv4)
    : classifyIPv6(parsed as ipaddr.IPv6);
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  const range = address.range();
  if (range === "unicast") return PUBLIC;
  return { public: false, description: IPV4_RANGES[range] ?? "a reserved address" };
}

function classifyIPv6(address: ipaddr.IPv6): AddressClass {
  const embedded = embeddedIPv4(address);
  if (embedded) {
    const inner = classifyIPv4(embedded.address);
    if (inner.public) return PUBLIC;
    return {
      public: false,
      description: `${inner.description} (${embedded.via} ${embedded.address.toString()})`,
    };
  }
  const range = address.range();
  const named = IPV6_RANGES[range];
  if (named) return { public: false, description: named };
  if (range === "unicast" && address.match(GLOBAL_UNICAST)) return PUBLIC;
  return { public: false, description: "a reserved address" };
}

/** IPv6 forms that carry an IPv4 address the packet really goes to: mapped, translated, NAT64, 6to4. */
function embeddedIPv4(address: ipaddr.IPv6): { address: ipaddr.IPv4; via: string } | null {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === "ipv4Mapped" || range === "rfc6145") {
    return { address: new ipaddr.IPv4(bytes.slice(12)), via: "IPv4-mapped" };
  }
  if (range === "rfc6052" && address.match(NAT64_WELL_KNOWN)) {
    return { address: new ipaddr.IPv4(bytes.slice(12)), via: "NAT64 of" };
  }
  if (range === "6to4") return { address: new ipaddr.IPv4(bytes.slice(2, 6)), via: "6to4 of" };
  return null;
}

/** The IP address a URL host names directly (WHATWG already normalised `0x7f.1` etc.), or null for a host name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return bare;
  if (bare.includes(":") && ipaddr.IPv6.isValid(bare)) return bare;
  return null;
}
