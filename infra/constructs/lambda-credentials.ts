/**
 * What the bundles use instead of `@aws-sdk/credential-provider-node` (an esbuild alias in
 * `bundleOptions`, `bundle-options.ts`): the SDK clients' default credentials, from the environment
 * only. In Lambda the function's role is always there (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`), and the default chain answers from it first; its other providers (SSO, STS,
 * profiles, the instance metadata service) are about 120 KiB of each bundle that Lambda never runs.
 * Only the bundles use it: the local stack and the tests run the sources, with the whole chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

type FromEnvInit = Parameters<typeof fromEnv>[0];

/** The one export the SDK clients' runtime configuration takes from the default chain's package. */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);
