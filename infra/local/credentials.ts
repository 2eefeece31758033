/**
 * The credentials the local stack's SDK clients sign with: DynamoDB Local and fauxqs accept any, and
 * the local stack never talks to AWS. A module of its own, so that what needs them (the step workers'
 * bundle among them) does not load DynamoDB Local's launcher.
 */
export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
