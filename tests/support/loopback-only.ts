/**
 * A tripwire for the safe fetcher's `beforeConnect`: should the address rules ever regress, no test
 * may open a socket beyond loopback (169.254.169.254 and friends would really be contacted).
 */
export function loopbackOnly(address: string): void {
  if (!/^(127\.|::1$|::ffff:127\.)/.test(address)) throw new Error(`test tripwire: would connect to ${address}`);
}
