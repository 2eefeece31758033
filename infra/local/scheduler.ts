/**
 * A local EventBridge Scheduler: the subset of its REST API the production adapter uses
 * (CreateSchedule, GetSchedule, DeleteSchedule, one-shot `at(...)` schedules in UTC), firing at the
 * given time by sending the target's input to its SQS queue. There is no emulator to install, so
 * this is ours. Tests reach a few local-only controls under `/_local/`: the list of schedules and of
 * fired ones, and firing a schedule now (early, or twice). Its time is the local clock's: when that
 * moves forward, every schedule it passed fires. As the gateways, it answers only requests whose Host
 * is its own address, and its controls take only JSON bodies (host-guard.ts, refusals.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { localClock } from './clock.ts';
import { hostAllowed } from './host-guard.ts';
import { localBody, writeEnvelope } from './refusals.ts';

interface Schedule {
  name: string;
  groupName: string;
  arn: string;
  expression: string;
  at: number;
  target: { Arn: string; RoleArn: string; Input?: string; DeadLetterConfig?: { Arn?: string } };
  actionAfterCompletion: string;
  timer?: NodeJS.Timeout;
  /** Fired at its time already (a schedule kept after completion does not fire again). */
  completed?: boolean;
}

export interface LocalScheduler {
  endpoint: string;
  stop(): Promise<void>;
}

/** The longest a Node timer waits (longer ones fire at once). */
const MAX_TIMER_MS = 2_147_483_647;
const AT = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;

export async function startLocalScheduler(options: { sqs: SQSClient }): Promise<LocalScheduler> {
  const schedules = new Map<string, Schedule>();
  const fired: { name: string; groupName: string; at: string; firedAt: string; early: boolean }[] = [];

  /** The URL of the queue an ARN names (`arn:aws:sqs:<region>:<account>:<name>`). */
  async function queueUrl(arn: string) {
    const { QueueUrl } = await options.sqs.send(
      new GetQueueUrlCommand({ QueueName: arn.split(':').at(-1) ?? '' }),
    );
    return QueueUrl;
  }

  async function fire(schedule: Schedule, early: boolean) {
    const deadLetter = schedule.target.DeadLetterConfig?.Arn;
    const body = schedule.target.Input ?? '{}';
    fired.push({
      name: schedule.name,
      groupName: schedule.groupName,
      at: new Date(schedule.at).toISOString(),
      firedAt: new Date(localClock.now()).toISOString(),
      early,
    });
    try {
      await options.sqs.send(
        new SendMessageCommand({ QueueUrl: await queueUrl(schedule.target.Arn), MessageBody: body }),
      );
    } catch (error) {
      // As the service does: what cannot be delivered goes to the schedule's DLQ.
      const dlqUrl = deadLetter ? await queueUrl(deadLetter).catch(() => undefined) : undefined;
      if (dlqUrl) await options.sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: body }));
      else process.stderr.write(`local scheduler: ${schedule.name} undeliverable: ${String(error)}\n`);
    }
  }

  function arm(schedule: Schedule) {
    clearTimeout(schedule.timer);
    if (schedule.completed) return;
    const delay = Math.max(0, schedule.at - localClock.now());
    schedule.timer = setTimeout(
      () => {
        // A timer waits at most about 24.8 days: a later schedule waits again.
        if (schedule.at > localClock.now()) return arm(schedule);
        schedule.completed = true;
        void fire(schedule, false).finally(() => {
          if (schedule.actionAfterCompletion === 'DELETE')
            schedules.delete(key(schedule.groupName, schedule.name));
        });
      },
      Math.min(delay, MAX_TIMER_MS),
    );
  }

  // The clock moved forward: each schedule's timer counts from the new time.
  const unsubscribe = localClock.onAdvance(() => {
    for (const schedule of schedules.values()) arm(schedule);
  });

  const server = createServer({ requireHostHeader: false }, (request, response) => {
    handle(request, response).catch((error: unknown) =>
      reply(response, 500, { Message: String(error) }, 'InternalServerException'),
    );
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://local');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (!hostAllowed(request.headers.host, { host: '127.0.0.1', port })) {
      const msg = `Host not allowed: the local scheduler answers only at http://127.0.0.1:${port}`;
      return writeEnvelope(response, 421, 'WRONG_HOST', msg, randomUUID());
    }
    const local = /^\/_local\/schedules(?:\/([^/]+)\/fire)?$/.exec(url.pathname);
    if (local) {
      const refused = localBody(request, chunks);
      if ('refusal' in refused) {
        const { status, type, msg, details } = refused.refusal;
        return writeEnvelope(response, status, type, msg, randomUUID(), details);
      }
      if (request.method === 'GET')
        return reply(response, 200, { schedules: [...schedules.values()].map(describe), fired });
      const schedule = schedules.get(
        key(url.searchParams.get('groupName') ?? 'default', decodeURIComponent(local[1] ?? '')),
      );
      if (!schedule)
        return reply(response, 404, { Message: 'Schedule not found' }, 'ResourceNotFoundException');
      await fire(schedule, schedule.at > localClock.now());
      return reply(response, 200, {});
    }

    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    if (!match?.[1])
      return reply(
        response,
        404,
        { Message: `Unsupported ${request.method} ${url.pathname}` },
        'ResourceNotFoundException',
      );
    const body = parseJson(chunks);
    if (!body) return reply(response, 400, { Message: 'The body is not valid JSON' }, 'ValidationException');
    const name = decodeURIComponent(match[1]);
    const groupName =
      (body.GroupName as string | undefined) ?? url.searchParams.get('groupName') ?? 'default';
    const id = key(groupName, name);

    if (request.method === 'POST') {
      if (schedules.has(id))
        return reply(response, 409, { Message: `Schedule ${name} already exists.` }, 'ConflictException');
      const expression = String(body.ScheduleExpression ?? '');
      const at = AT.exec(expression)?.[1];
      const target = body.Target as Schedule['target'] | undefined;
      if (!at || !target?.Arn) {
        return reply(
          response,
          400,
          { Message: 'Only at(...) schedules with a target are supported locally' },
          'ValidationException',
        );
      }
      const schedule: Schedule = {
        name,
        groupName,
        arn: `arn:aws:scheduler:us-east-1:000000000000:schedule/${groupName}/${name}`,
        expression,
        at: Date.parse(`${at}Z`),
        target,
        actionAfterCompletion: String(body.ActionAfterCompletion ?? 'NONE'),
      };
      schedules.set(id, schedule);
      arm(schedule);
      return reply(response, 200, { ScheduleArn: schedule.arn });
    }
    const schedule = schedules.get(id);
    if (!schedule)
      return reply(
        response,
        404,
        { Message: `Schedule ${name} does not exist.` },
        'ResourceNotFoundException',
      );
    if (request.method === 'GET') return reply(response, 200, describe(schedule));
    if (request.method === 'DELETE') {
      clearTimeout(schedule.timer);
      schedules.delete(id);
      return reply(response, 200, {});
    }
    return reply(response, 405, { Message: 'Method not allowed' }, 'ValidationException');
  }

  // The port is known once listening; no request comes before.
  let port = 0;
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((done) => {
        unsubscribe();
        for (const schedule of schedules.values()) clearTimeout(schedule.timer);
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function key(groupName: string, name: string) {
  return `${groupName}/${name}`;
}

function describe(schedule: Schedule) {
  return {
    Arn: schedule.arn,
    Name: schedule.name,
    GroupName: schedule.groupName,
    ScheduleExpression: schedule.expression,
    ScheduleExpressionTimezone: 'UTC',
    State: 'ENABLED',
    ActionAfterCompletion: schedule.actionAfterCompletion,
    FlexibleTimeWindow: { Mode: 'OFF' },
    Target: schedule.target,
  };
}

/** The body of an API call as the SDK sends it (none is `{}`), or undefined when it does not parse. */
function parseJson(chunks: Buffer[]): Record<string, unknown> | undefined {
  if (chunks.length === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, status: number, body: unknown, errorType?: string) {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  response.end(JSON.stringify(body));
}
