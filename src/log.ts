// pino logger factory; every line of a request carries its `req_id` through child loggers.
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { svc: 'swap-router' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
