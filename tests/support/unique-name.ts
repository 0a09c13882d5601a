/** `prefix` and 8 random hex digits: a name no other test or run uses, even on a shared database. */
export const uniqueName = (prefix: string) => `${prefix}_${crypto.randomUUID().slice(0, 8)}`;
