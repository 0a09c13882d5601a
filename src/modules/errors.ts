/**
 * The errors business code throws. Only `trpc/errors.ts` turns them into tRPC/HTTP errors, so
 * modules never import the transport.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
}

export class NotFoundError extends ServiceError {
  override name = "NotFoundError";
  constructor(what: string) {
    super(`${what} not found`);
  }
}

export class ConflictError extends ServiceError {
  override name = "ConflictError";
}

/** Input that passed the schema but is still wrong (e.g. a TOTP code that does not match). */
export class InvalidInputError extends ServiceError {
  override name = "InvalidInputError";
}

export class UnauthenticatedError extends ServiceError {
  override name = "UnauthenticatedError";
}

/** Authenticated, but this credential may not do this. */
export class ForbiddenError extends ServiceError {
  override name = "ForbiddenError";
}

/** An access token without the scope the operation needs (RFC 6750's `insufficient_scope`). */
export class MissingScopeError extends ForbiddenError {
  override name = "MissingScopeError";
  constructor(readonly scope: string) {
    super(`This token lacks the scope ${scope}`);
  }
}

export class TooManyRequestsError extends ServiceError {
  override name = "TooManyRequestsError";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A backing service (database, queue) is unavailable; the client may retry. */
export class UnavailableError extends ServiceError {
  override name = "UnavailableError";
}

/** The job queue's Postgres cannot be reached, so nothing that needs a job can start. */
export class QueueUnavailableError extends UnavailableError {
  override name = "QueueUnavailableError";
  constructor() {
    super("The job queue is unavailable; try again shortly");
  }
}

/** A body whose type this operation does not take (e.g. an upload that is not one of the image types). */
export class UnsupportedMediaTypeError extends ServiceError {
  override name = "UnsupportedMediaTypeError";
}

/** Something over a size limit or a quota; the message names the limit. */
export class TooLargeError extends ServiceError {
  override name = "TooLargeError";
}
