import { TOTP_PERIOD_SECONDS } from "../../src/modules/auth/totp";

const STEP_MS = TOTP_PERIOD_SECONDS * 1000;

/**
 * Waits out the end of a TOTP time step, so "30 s ago" cannot turn into "60 s ago" mid-test. The
 * one wait on the clock the TOTP tests keep: the time step is the thing under test, not a stand-in.
 */
export async function awayFromStepBoundary(marginMs = 2500): Promise<void> {
  const left = STEP_MS - (Date.now() % STEP_MS);
  if (left < marginMs) await Bun.sleep(left + 100);
}
