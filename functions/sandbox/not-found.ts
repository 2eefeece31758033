import { publicRoute } from '#shared/middleware/sandbox-route';
import { ProviderError } from '#shared/provider/interface/errors';

/** The `$default` route: any method and path the API does not serve. */
export const handler = publicRoute(undefined, (_body, event) => {
  throw new ProviderError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
});
