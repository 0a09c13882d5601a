import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { ipLiteralOf } from "../address-policy";
import { errorCode, failure, type Hop, refusal } from "./fetch-errors";
import type { ResolvedAddress, Settings } from "./options";

/** Scheme, userinfo, IP-literal and port rules, checked before any socket is opened. */
export function checkTarget(settings: Settings, hop: Hop): void {
  const { url } = hop;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refusal(hop, "only http and https URLs can be imported");
  }
  if (url.username || url.password) {
    throw refusal(hop, "URLs with a user name or password are not allowed");
  }
  const literal = ipLiteralOf(url.hostname);
  if (literal) checkAddress(settings, hop, literal, null);
  if (!settings.allowPrivateNetworks && url.port !== "" && !settings.allowedPorts.includes(Number(url.port))) {
    const ports = settings.allowedPorts.join(", ");
    throw refusal(hop, `port ${url.port} is not allowed; imports use the default ports or ${ports}`);
  }
}

function checkAddress(settings: Settings, hop: Hop, address: string, hostname: string | null): void {
  if (settings.allowPrivateNetworks) return;
  const verdict = settings.classifyAddress(address);
  if (verdict.public) return;
  const what = hostname
    ? `${hostname} resolves to ${address}, ${verdict.description}`
    : `${address} is ${verdict.description}`;
  throw refusal(hop, `${what}; imports only reach public addresses`, `blocked address ${address}`);
}

/** Hands a new socket the addresses checked for this request. */
export function checkedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const first = addresses[0]!;
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

/** Resolves, refuses if any record is non-public, and hands the socket only the checked addresses (no second lookup to rebind). */
export function pinnedLookup(settings: Settings, hop: Hop, onError: (error: unknown) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(settings, hop, hostname).then(
      (addresses) => {
        const first = addresses[0]!;
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error) => {
        onError(error);
        callback(error, "");
      },
    );
  };
}

export async function resolveChecked(settings: Settings, hop: Hop, hostname: string): Promise<LookupAddress[]> {
  const literal = ipLiteralOf(hostname);
  const answers = literal ? [{ address: literal, family: 0 }] : await resolveHost(settings, hop, hostname);
  if (answers.length === 0) throw failure(hop, `${hostname} does not resolve to any address`, true);
  for (const answer of answers) checkAddress(settings, hop, answer.address, literal ? null : hostname);
  const pinned = answers.map(({ address }) => ({ address, family: address.includes(":") ? 6 : 4 }));
  for (const { address } of pinned) settings.beforeConnect(address);
  // IPv4 first: many hosts publish AAAA records this machine cannot route.
  return pinned.sort((a, b) => a.family - b.family);
}

async function resolveHost(settings: Settings, hop: Hop, hostname: string): Promise<ResolvedAddress[]> {
  try {
    return await settings.resolve(hostname);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOTFOUND" || code === "ENODATA" || code === "EAI_NONAME") {
      throw failure(hop, `the host name ${hostname} does not exist`, true, error);
    }
    throw failure(hop, `the host name ${hostname} could not be resolved right now`, false, error);
  }
}
