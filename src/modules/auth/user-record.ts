import type { UserRecord } from "./schemas";

export function toUserRecord(user: { id: number; username: string; createdAt: number; totpEnabled: boolean }): UserRecord {
  return {
    id: user.id,
    username: user.username,
    created_at: new Date(user.createdAt).toISOString(),
    totp_enabled: user.totpEnabled,
  };
}
