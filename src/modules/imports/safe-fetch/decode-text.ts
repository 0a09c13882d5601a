/** Decodes with the BOM, then the Content-Type charset, then a `<meta>`/XML declaration in the first 2 KiB, then UTF-8. */
export function decodeText(bytes: Uint8Array, contentType?: string): string {
  const label = bomCharset(bytes) ?? charsetParameter(contentType) ?? sniffCharset(bytes) ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

function bomCharset(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return null;
}

function charsetParameter(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "");
  return match?.[1] ?? null;
}

function sniffCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 2048)).toString("latin1");
  const declared =
    /<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1] ??
    /^\s*<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1];
  if (!declared) return null;
  // A page that could declare itself in ASCII is not UTF-16 (WHATWG prescan rule).
  return declared.toLowerCase().startsWith("utf-16") ? "utf-8" : declared;
}
