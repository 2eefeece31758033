/**
 * A stand-in for CloudFormation's DescribeStacks (query protocol, XML), for the test of `npm run
 * console -- -c stage=...`: there is no local CloudFormation. It knows the stacks it is given, each
 * with its outputs, and answers as CloudFormation does for a stack it does not know.
 */
import { createServer } from 'node:http';

const xml = (text: string) => text.replace(/[<>&'"]/g, (char) => `&#${char.charCodeAt(0)};`);

export async function startCloudFormationStandIn(stacks: Record<string, Record<string, string>>) {
  const asked: string[] = [];
  const server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    incoming.on('end', () => {
      const form = new URLSearchParams(body);
      const name = form.get('StackName') ?? '';
      asked.push(`${form.get('Action')} ${name}`);
      const outputs = stacks[name];
      outgoing.setHeader('content-type', 'text/xml');
      if (form.get('Action') !== 'DescribeStacks' || !outputs) {
        outgoing.statusCode = 400;
        outgoing.end(
          `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${xml(name)} does not exist</Message></Error><RequestId>stand-in</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><OutputKey>${xml(key)}</OutputKey><OutputValue>${xml(value)}</OutputValue></member>`,
        )
        .join('');
      outgoing.end(
        `<DescribeStacksResponse><DescribeStacksResult><Stacks><member><StackName>${xml(name)}</StackName><StackId>arn:aws:cloudformation:eu-west-1:000000000000:stack/${xml(name)}/1</StackId><CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    asked,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
