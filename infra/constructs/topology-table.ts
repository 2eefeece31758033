/**
 * A topology table: on demand, point-in-time recovery, the spec's TTL attribute and indexes; in
 * production protected from deletion and kept when its stack goes. With `encryptionKey`, encrypted
 * with that customer-managed key (the deposits table's), else with DynamoDB's own.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { TableSpec } from '#shared/topology';
import type { Stage } from '../cdk/context.ts';

export function topologyTable(
  scope: Construct,
  id: string,
  spec: TableSpec,
  stage: Stage,
  encryptionKey?: kms.IKey,
): dynamodb.Table {
  const production = stage === 'prod';
  const table = new dynamodb.Table(scope, id, {
    partitionKey: { name: spec.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: spec.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    ...(spec.timeToLiveAttribute ? { timeToLiveAttribute: spec.timeToLiveAttribute } : {}),
    ...(spec.stream ? { stream: dynamodb.StreamViewType.NEW_IMAGE } : {}),
    ...(encryptionKey ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey } : {}),
    deletionProtection: production,
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  for (const index of spec.indexes ?? []) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.NUMBER },
      ...(index.include
        ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }
        : {
            projectionType: index.keysOnly ? dynamodb.ProjectionType.KEYS_ONLY : dynamodb.ProjectionType.ALL,
          }),
    });
  }
  return table;
}
