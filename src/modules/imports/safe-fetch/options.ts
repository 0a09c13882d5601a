import dns from "node:dns";
import { type AddressClass, classifyAddress } from "../address-policy";

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every A/AAAA record of a host name. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetcherOptions {
  /** The operator setting IMPORT_ALLOW_PRIVATE_NETWORKS: lifts the address and port rules only. */
  allowPrivateNetworks: boolean;
  /** One deadline across all redirects and the body. */
  timeoutMs?: number;
  /** Cap on the body as received and after decompression. */
  maxBodyBytes?: number;
  maxRedirects?: number;
  resolve?: Resolver;
  /** MIME essences (`type/subtype`) accepted for 2xx pages. */
  allowedContentTypes?: string[];
  /**
   * MIME essences of documents (a PDF) a 2xx page may be: answered with their headers and an empty
   * body, unread, for the importer to download under the document's own limits.
   */
  documentContentTypes?: string[];
  /** Explicit ports allowed while the address rule is on (default ports are always allowed). */
  allowedPorts?: number[];
  /** Test seam: lets a loopback fixture stand in for a public host. */
  classifyAddress?: (address: string) => AddressClass;
  /** Test seam: sees every address a socket is about to connect to, and may throw to stop it. */
  beforeConnect?: (address: string) => void;
}

export const DEFAULT_ALLOWED_CONTENT_TYPES = [
  "text/html",
  "application/xhtml+xml",
  "text/plain",
  "text/markdown",
  "application/json",
  "text/json",
  "application/xml",
  "text/xml",
];

export const MIB = 1024 * 1024;

const defaultResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true });

/** The options with every default filled in, as the modules below take them. */
export interface Settings {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxBodyBytes: number;
  maxRedirects: number;
  resolve: Resolver;
  allowedContentTypes: string[];
  documentContentTypes: string[];
  allowedPorts: number[];
  classifyAddress: (address: string) => AddressClass;
  beforeConnect: (address: string) => void;
}

export function settingsOf(options: SafeFetcherOptions): Settings {
  return {
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBodyBytes: options.maxBodyBytes ?? 10 * MIB,
    maxRedirects: options.maxRedirects ?? 5,
    resolve: options.resolve ?? defaultResolver,
    allowedContentTypes: (options.allowedContentTypes ?? DEFAULT_ALLOWED_CONTENT_TYPES).map((type) => type.toLowerCase()),
    documentContentTypes: (options.documentContentTypes ?? []).map((type) => type.toLowerCase()),
    allowedPorts: options.allowedPorts ?? [80, 443, 8080, 8443],
    classifyAddress: options.classifyAddress ?? classifyAddress,
    beforeConnect: options.beforeConnect ?? (() => {}),
  };
}
