import { get } from "../api";
import type { User } from "../types";

/** The account as it is now (GET /api/auth/me): two-factor may have been turned on since the login. */
export const currentUser = () => get<User>("/api/auth/me");
