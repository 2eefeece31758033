/**
 * A local stack in a process of its own, for each project's global setup (`local-stack.ts`). A
 * stack's handlers read their configuration from the process's environment, once, so two stacks of
 * different settings cannot live in one process; and the test run's main process has the workers
 * to serve. Started with the stack's settings as
 * JSON in `STACK_OPTIONS`; prints one line, `STACK <json>`, with what the tests are given; stops on
 * SIGTERM.
 */
import { startLocalStack } from '#infra/local/stack';

const options = JSON.parse(process.env.STACK_OPTIONS ?? '{}');
const stack = await startLocalStack(options);
const { sandboxUrl, depositsUrl, operatorUrl, operatorToken, dynamodbEndpoint, sqsEndpoint } = stack;
const given = {
  sandboxUrl,
  depositsUrl,
  operatorUrl,
  operatorToken,
  secondOperatorToken: stack.secondOperatorToken,
  dynamodbEndpoint,
  tableNames: stack.tableNames,
  sqsEndpoint,
  schedulerEndpoint: stack.schedulerEndpoint,
  queueUrls: stack.queueUrls,
};
process.stdout.write(`STACK ${JSON.stringify(given)}\n`);
process.on('SIGTERM', () => {
  void stack.stop().finally(() => process.exit(0));
});
