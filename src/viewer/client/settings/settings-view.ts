// `Settings` (`/settings`): one labelled section per region — Account, Two-factor, Sessions, Access
// tokens (with Connected apps), Webhooks, Search by meaning. Each region reads what it shows every
// time the view opens, so a change made elsewhere (another tab, an agent) is seen.
import type { User } from "../types";
import { currentUser } from "./current-user";

/** One region of the view: it draws itself into its section of the page. */
export interface Region {
  /** Reads and draws; a failure is said inside the region, never thrown. */
  load(user: User): Promise<void> | void;
  /** Back to nothing of the last account (logout). */
  reset(): void;
}

export interface SettingsView {
  show(user: User): void;
  reset(): void;
}

export function setUpSettings(regions: Region[]): SettingsView {
  return {
    show(user) {
      // The account as it is now, read once for every region (two-factor may have changed since the login).
      void currentUser()
        .catch(() => user)
        .then((me) => {
          for (const region of regions) void region.load(me);
        });
    },
    reset() {
      for (const region of regions) region.reset();
    },
  };
}
