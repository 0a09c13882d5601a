import { expect } from "bun:test";
import { ImportError } from "../../src/modules/imports/import-error";

/** The ImportError a call throws; fails the test if it returns instead. */
export function importFailureOf(run: () => unknown): ImportError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError);
    return error as ImportError;
  }
  throw new Error("expected an ImportError, but the call returned");
}

/** The ImportError a promise rejects with; fails the test if it resolves instead. */
export async function importRejectionOf(promise: Promise<unknown>): Promise<ImportError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError);
    return error as ImportError;
  }
  throw new Error("expected an ImportError, but the promise resolved");
}
