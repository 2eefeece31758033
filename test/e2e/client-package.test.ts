/**
 * The deposits client as a package, as a wallet
 * backend gets it: packed by `npm pack ./packages/deposits-client` (which builds it), installed from
 * the tarball in a scratch project outside the repository, type-checked there under a consumer's
 * strict settings (`strict`, `exactOptionalPropertyTypes`, `module` and `moduleResolution`
 * `nodenext`, the package's own `.d.ts` checked too) with the repository's TypeScript, and run with
 * plain `node` against the shared local stack: `packages/deposits-client/example/deposit.ts` takes
 * a deposit at the bank that asks one-time passwords through create, its question, `answer`,
 * `waitFor` and done, then reads it by its id with no user secret; `example/webhook.ts` verifies
 * the stack's deliveries of it with the client's verifier.
 *
 * The install needs no network: the scratch project's lockfile names the versions the repository's
 * own lockfile installs, so npm takes them from its cache, where `npm ci` put them (`--offline`).
 * Should that cache lack one, the install is tried again preferring the cache (the npm registry is
 * reachable wherever the tests run).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { depositsUrl, webhookDeliveries, webhookUrl } from '../support/deposits.ts';
import { appSecret, createUser, eventually } from '../support/sandbox.ts';

const repo = resolve(import.meta.dirname, '../..');
const packageDir = join(repo, 'packages/deposits-client');
const run = promisify(execFile);
/** Generous: the build, the install and the type check each take a while on a loaded two-core machine. */
const minutes = (n: number) => n * 60_000;

interface Locked {
  version: string;
  integrity?: string;
  dependencies?: Record<string, string>;
}
const repoLock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, Locked>;
};

/**
 * The scratch project's lockfile entries of `names` and what they need, at the versions the
 * repository's lockfile installs, each with its registry tarball's address and integrity (so that
 * npm needs no registry document, only the tarball its cache holds).
 */
function lockedClosure(
  names: string[],
  dev: boolean,
): Record<string, Locked & { resolved: string; dev?: true }> {
  const entries: Record<string, Locked & { resolved: string; dev?: true }> = {};
  const todo = [...names];
  for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
    const path = `node_modules/${name}`;
    const locked = repoLock.packages[path];
    if (entries[path]) continue;
    if (!locked?.integrity) throw new Error(`the repository's lockfile has no ${name}`);
    const { version, integrity, dependencies } = locked;
    entries[path] = {
      version,
      resolved: `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${version}.tgz`,
      integrity,
      ...(dependencies ? { dependencies } : {}),
      ...(dev ? { dev: true as const } : {}),
    };
    todo.push(...Object.keys(dependencies ?? {}));
  }
  return entries;
}

/** A wallet backend's project: the packed client, @types/node, a strict tsconfig, the two examples. */
function writeScratchProject(scratch: string, tarball: string) {
  const client = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
  };
  const typesNode = repoLock.packages['node_modules/@types/node']?.version ?? '';
  const manifest = {
    name: 'wallet-backend',
    private: true,
    type: 'module',
    dependencies: { [client.name]: `file:${tarball}` },
    devDependencies: { '@types/node': typesNode },
  };
  const lock = {
    name: manifest.name,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name: manifest.name,
        dependencies: manifest.dependencies,
        devDependencies: manifest.devDependencies,
      },
      [`node_modules/${client.name}`]: {
        version: client.version,
        resolved: `file:${tarball}`,
        dependencies: client.dependencies,
      },
      ...lockedClosure(['@types/node'], true),
      ...lockedClosure(Object.keys(client.dependencies), false),
    },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      // The package's own declarations are checked too, under these settings.
      skipLibCheck: false,
      types: ['node'],
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src'],
  };
  mkdirSync(join(scratch, 'src'), { recursive: true });
  writeFileSync(join(scratch, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(scratch, 'package-lock.json'), JSON.stringify(lock, null, 2));
  writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  for (const file of ['deposit.ts', 'webhook.ts']) {
    copyFileSync(join(packageDir, 'example', file), join(scratch, 'src', file));
  }
  // Options as configuration often has them, possibly undefined: taken under exactOptionalPropertyTypes.
  writeFileSync(
    join(scratch, 'src', 'options.ts'),
    [
      "import { DepositsClient } from '@bank-data/deposits-client';",
      'const configured: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined } = {};',
      "const client = new DepositsClient({ baseUrl: 'http://127.0.0.1:3000', timeoutMs: configured.timeoutMs });",
      "export const waiting = client.waitFor('dep_1', { signal: configured.signal, onQuestion: undefined });",
      '',
    ].join('\n'),
  );
}

/** `node dist/<program>.js` in the scratch project, `input` on its standard input; its exit code and output. */
async function node(scratch: string, program: string, env: Record<string, string>, input = '') {
  const running = run(process.execPath, [join('dist', program)], {
    cwd: scratch,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: minutes(4),
  });
  running.child.stdin?.end(input);
  try {
    const { stdout } = await running;
    return { code: 0, output: JSON.parse(stdout.trim()) };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof code !== 'number' || !stdout?.trim()) throw new Error(`${program} failed: ${stderr}`);
    return { code, output: JSON.parse(stdout.trim()) };
  }
}

/** A delivery as the stack sent it: its raw body and signed headers (the test receiver keeps them). */
async function signedDelivery(webhookId: string) {
  const response = await fetch(`${webhookUrl}/signed?id=${encodeURIComponent(webhookId)}`);
  if (!response.ok) throw new Error(`no delivery ${webhookId}: ${response.status}`);
  return (await response.json()) as { body: string; headers: Record<string, string> };
}

describe('the deposits client, installed from its packed tarball', () => {
  const work = mkdtempSync(join(tmpdir(), 'deposits-client-'));
  const scratch = join(work, 'wallet-backend');
  let packed: string[] = [];

  beforeAll(async () => {
    // The tarball, built by its prepack (`npm run build`), as a registry would hold it.
    await run('npm', ['pack', packageDir, '--pack-destination', work], { cwd: repo, timeout: minutes(5) });
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack made no tarball');
    const { stdout } = await run('tar', ['-tzf', join(work, tarball)]);
    packed = stdout.trim().split('\n');
    writeScratchProject(scratch, join(work, tarball));
    const install = ['ci', '--no-audit', '--no-fund', '--ignore-scripts'];
    await run('npm', [...install, '--offline'], { cwd: scratch, timeout: minutes(3) }).catch((error) => {
      console.warn(
        `npm's cache lacks a package (${error.message.split('\n')[0]}): installing from the registry`,
      );
      return run('npm', [...install, '--prefer-offline'], { cwd: scratch, timeout: minutes(3) });
    });
    // A consumer's strict type check, with the repository's TypeScript; it emits the programs to run.
    await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', scratch], {
      cwd: scratch,
      timeout: minutes(5),
    }).catch((error: { stdout?: string }) => {
      throw new Error(`the scratch project does not type-check:\n${error.stdout}`);
    });
  }, minutes(12));

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds the built client and its types, and no server code', () => {
    const client = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    const installed = readdirSync(join(scratch, 'node_modules'));

    expect(Object.keys(client.dependencies).sort()).toEqual(['standardwebhooks', 'zod']);
    expect(packed).toContain('package/dist/deposits-api/client.js');
    expect(packed).toContain('package/dist/deposits-api/client.d.ts');
    expect(packed).toContain('package/dist/deposits-api/webhooks.js');
    expect(packed).toContain('package/dist/deposits-api/webhooks.d.ts');
    expect(packed.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(packed.filter((file) => /\/(adapters|wiring|middleware|operator|sandbox)\//.test(file))).toEqual(
      [],
    );
    // What an install brings: the client, zod, standardwebhooks and its two (and the project's @types/node).
    expect(installed.sort()).toEqual([
      '.package-lock.json',
      '@bank-data',
      '@stablelib',
      '@types',
      'fast-sha256',
      'standardwebhooks',
      'undici-types',
      'zod',
    ]);
    for (const file of packed.filter((name) => name.endsWith('.js'))) {
      const text = readFileSync(
        join(scratch, 'node_modules/@bank-data/deposits-client', file.slice('package/'.length)),
        'utf8',
      );
      expect(text, file).not.toMatch(/@aws-sdk|@aws-lambda-powertools|@middy|#(functions|infra)\//);
    }
  });

  it(
    'runs create, question, answer, waitFor to done with plain node, reads it by id alone, and verifies its webhooks',
    async () => {
      // prepare: the user's connection, as the wallet's onboarding keeps it
      const user = await createUser('SANDBOX_OTP');
      const clientReference = `topup-${randomUUID()}`;
      const secret = inject('webhookSecret');

      // act
      const deposit = await node(scratch, 'deposit.js', {
        DEPOSITS_URL: depositsUrl,
        ACCESS_TOKEN: user.accessToken,
        APP_SECRET: appSecret,
        USER_SECRET: user.userSecret,
        SENDER_ID: user.accountId,
        AMOUNT: '42.5',
        CLIENT_REFERENCE: clientReference,
        WALLET_USER: 'u-42',
      });
      const { asked, ended, read } = deposit.output;
      const id: string = ended.operationID;
      const done = await eventually(async () => {
        const { deliveries } = await webhookDeliveries(id);
        return deliveries.find((delivery) => delivery.type === 'deposit.done');
      }, minutes(2));
      const { deliveries } = await webhookDeliveries(id);
      const verified = [];
      for (const { id: webhookId } of deliveries) {
        const signed = await signedDelivery(webhookId);
        verified.push(await node(scratch, 'webhook.js', { WEBHOOK_SECRET: secret }, JSON.stringify(signed)));
      }
      const doneSigned = await signedDelivery(done.id);
      const tampered = await node(
        scratch,
        'webhook.js',
        { WEBHOOK_SECRET: secret },
        JSON.stringify({ ...doneSigned, body: doneSigned.body.replace('"amount":42.5', '"amount":4250') }),
      );

      // assess: the deposit went through its questions to done, and reads back by its id alone
      expect(deposit.code).toBe(0);
      expect(asked).toMatchObject({
        operationID: id,
        status: 'user_input_required',
        userInputs: [{ id: 'otp' }],
      });
      expect(ended).toMatchObject({
        status: 'done',
        step: 'completed',
        amount: 42.5,
        currency: 'AED',
        clientReference,
        metadata: { walletUser: 'u-42' },
        reference: expect.any(String),
      });
      expect(read).toMatchObject({
        operationID: id,
        status: 'done',
        reference: ended.reference,
        clientReference,
      });
      expect((await user.state()).transfers.map((transfer: { amount: number }) => transfer.amount)).toEqual([
        42.5,
      ]);
      // ... and every delivery of it verifies through the client's verifier, typed by its type
      expect(verified.map((each) => each.code)).toEqual(deliveries.map(() => 0));
      expect(verified.map((each) => each.output.type)).toEqual(deliveries.map((delivery) => delivery.type));
      expect(verified.find((each) => each.output.type === 'deposit.done')?.output).toEqual({
        type: 'deposit.done',
        data: expect.objectContaining({
          depositId: id,
          status: 'done',
          amount: 42.5,
          currency: 'AED',
          senderID: user.accountId,
          clientReference,
          metadata: { walletUser: 'u-42' },
          reference: ended.reference,
        }),
        booking: {
          book: 'top-up',
          depositId: id,
          amount: 42.5,
          currency: 'AED',
          clientReference,
          metadata: { walletUser: 'u-42' },
          reference: ended.reference,
        },
      });
      expect(tampered).toMatchObject({ code: 1, output: { refused: 'signature' } });
    },
    minutes(6),
  );
});
