/** The Powertools logger, created once per process. Request bodies are never logged: they hold secrets. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'bank-data-and-payments',
});
