import { notFoundRoute } from '#shared/middleware/not-found';
import { depositsApi } from '#shared/topology';

/** The `$default` route: any method and path the deposits API does not serve, with a hint when one fits. */
export const handler = notFoundRoute(depositsApi.routes);
