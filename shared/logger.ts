/** The Powertools logger, created once per process. Request bodies are never logged: they hold secrets. */
import { Logger } from '@aws-lambda-powertools/logger';
import { observabilityConfig } from '#shared/config';

export const logger = new Logger({
  serviceName: observabilityConfig().POWERTOOLS_SERVICE_NAME ?? 'bank-data-and-payments',
});
