import type { ChangePublisher } from "../../src/modules/events/change";

/** For tests that run jobs or reconcilers by hand, where no stream listens. */
export const unheardChanges: ChangePublisher = { publish: async () => {} };
