/** The logger the job machinery writes to; `console` fits, so does any structured logger wrapped to this shape. */
export interface JobLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLog: JobLog = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A logger whose messages start with `prefix`, so a line says which task or job it is about. */
export function prefixedLog(log: JobLog, prefix: string): JobLog {
  return {
    debug: (message, fields) => log.debug(`${prefix} ${message}`, fields),
    info: (message, fields) => log.info(`${prefix} ${message}`, fields),
    warn: (message, fields) => log.warn(`${prefix} ${message}`, fields),
    error: (message, fields) => log.error(`${prefix} ${message}`, fields),
  };
}
