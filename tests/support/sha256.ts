import { createHash } from "node:crypto";

/** SHA-256 of text (as UTF-8) or bytes, in lowercase hex: how the service names stored files and keeps tokens. */
export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
