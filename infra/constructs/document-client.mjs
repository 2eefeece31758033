/**
 * What the bundles take instead of `@aws-sdk/lib-dynamodb`'s entry (an esbuild alias in `bundleOptions`,
 * `bundle-options.ts`): the same exports, but its paginators made on their first call rather than
 * at load, and without the `DynamoDBDocument` aggregate, which no function uses. The package does not
 * declare itself free of side effects, and its entry makes `paginateQuery` and `paginateScan` as it
 * loads (`createPaginator(DynamoDBDocumentClient, ...)`), so esbuild keeps them, and with them the
 * whole DynamoDB client, in every bundle that imports the package at all: about 50 KiB of the
 * functions that never call DynamoDB (the outbox relay, its redrive, the operator's queue depths).
 *
 * Plain JavaScript: the package's `dist-es` files have no types of their own, and only esbuild reads
 * this file, through relative paths (the alias would turn the package's own name back into this
 * file). `test/infra/bundle-aliases.test.ts` holds its exports to the package's.
 */
import { createPaginator } from '@smithy/core';
import {
  QueryCommand,
  ScanCommand,
} from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/index.js';
import { DynamoDBDocumentClient } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/DynamoDBDocumentClient.js';

export { NumberValueImpl as NumberValue } from '@aws-sdk/util-dynamodb';
export * from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/index.js';
export * from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/DynamoDBDocumentClient.js';
export * from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/pagination/PaginatedBatchGet.js';

/** A paginator as the package makes it (`pagination/*Paginator.js`), on its first call. */
function lazily(command) {
  let paginate;
  return (config, input, ...rest) => {
    paginate ??= createPaginator(
      DynamoDBDocumentClient,
      command,
      'ExclusiveStartKey',
      'LastEvaluatedKey',
      'Limit',
    );
    return paginate(config, input, ...rest);
  };
}

export const paginateQuery = /* @__PURE__ */ lazily(QueryCommand);
export const paginateScan = /* @__PURE__ */ lazily(ScanCommand);
