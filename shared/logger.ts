/**
 * The Powertools logger, created once per process. Request bodies are never logged: they hold secrets.
 * Its service name is Powertools' own `POWERTOOLS_SERVICE_NAME` (set by the stacks and the local
 * stack), read by Powertools itself: the logger loads no configuration module, so the smallest
 * handlers (health, not-found) stay small.
 */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger();
