import { notFoundRoute } from '#shared/middleware/not-found';
import { operatorApi } from '#shared/topology';

/** The `$default` route: any method and path the operator API does not serve, with a hint when one fits. */
export const handler = notFoundRoute(operatorApi.routes);
