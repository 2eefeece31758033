/** `/v1/metadata/accounts/get`: the bank's `accountsMetadata`, as the catalog states it. */
import type { MetadataRequest } from '#shared/provider/interface/schemas';
import type { OperationContext } from '../operation-spec.ts';
import { bankOf } from '../rules.ts';

export function getMetadata(context: OperationContext, request: MetadataRequest) {
  const bank = bankOf(context.connection);
  return context.run({
    kind: 'metadata',
    idField: 'jobID',
    request,
    prepare: async () => bank.accountsMetadata,
    result: (accountsMetadata) => ({ accountsMetadata }),
    // The catalog is the bank's: the record keeps no copy, reading it back takes the catalog's.
    stored: () => ({}),
  });
}
