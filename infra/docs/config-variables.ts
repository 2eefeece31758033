/**
 * The configuration variables as docs/deploying.md shows them: what each means, and its default
 * where the code has none to give (one the code's schemas give is theirs, `configVariables`). The
 * docs test holds this list to the variables the handlers read and the local stack reads.
 */
export interface VariableRow {
  variables: readonly string[];
  /** Where the schemas give no default: what stands in (set by the stack, a local value). */
  default?: string;
  meaning: string;
}

export const variableRows: readonly VariableRow[] = [
  {
    variables: ['PORT', 'SANDBOX_PORT', 'HOST'],
    default: '`3000`, `3001`, `127.0.0.1`',
    meaning:
      'Where `npm start` serves the deposits API and the sandbox; a `HOST` beyond loopback is warned about at start (the stack has test credentials and no real authentication), and each gateway answers only its own address in `Host` ("Run it"). `npm run demo` finds the stack by the same variables',
  },
  {
    variables: ['OPERATOR_PORT', 'OPERATOR_TOKEN', 'SECOND_OPERATOR_TOKEN'],
    default: '`3002`, random per start (each)',
    meaning:
      "Where `npm start` serves the operator API (and the console's page), and the bearer tokens it takes: the operator's (identity `local-operator`) and a second operator's (identity `local-operator-2`), who approves a resolution to `done` above `RESOLVE_APPROVAL_ABOVE` that the first proposed (and the other way round)",
  },
  {
    variables: ['OPERATOR_QUEUES'],
    default: 'set by the stack',
    meaning:
      "The queues whose depths the operator API reads: JSON `[{ name, url, dlqName, dlqUrl }]`, every queue of the topology (only the operator's queues function has it in AWS)",
  },
  {
    variables: ['RESOLVE_APPROVAL_ABOVE'],
    meaning:
      'Four eyes on money that moved: JSON object of currency code to the largest amount, in that currency\'s minor units (AED 1,000.00 is `100000`, KWD 100.000 is `100000`), that one operator may resolve `done` alone. Above it a `done` waits for a second, different operator (docs/operating.md, "Resolving an unknown outcome"); a currency it does not name has no threshold (every `done` in it needs approval); `failed` never does. Only the operator\'s resolve function has it; CDK context `resolveApprovalAbove` sets it in AWS (unset: `{}`, every `done` needs two operators), as the local stack does unless given (the test stacks: `{"AED":100000,"KWD":100000}`). An unknown currency, a negative or fractional amount is refused at start (and at synth)',
  },
  {
    variables: ['PROVIDER_BASE_URL'],
    meaning:
      'The provider the orchestrator calls: `https://`, or `http://` to 127.0.0.1, ::1 or localhost only (refused at start otherwise, naming the variable)',
  },
  {
    variables: ['PROVIDER_TIMEOUT_MS'],
    meaning: 'Per provider call; beyond it the outcome is unknown',
  },
  {
    variables: ['PROVIDER_DIALECT'],
    meaning:
      "How the provider is spoken to: `spec` (the spec's paths and shapes, which the sandbox speaks) or `dapi-v2` (the real provider's current API: every call under `/v2`, `operationID` on every answer, no `sync`, the operation read's `opInfo`, a cool-down refusal's period). Anything else is refused at start, naming the variable. Everything above the provider client is the same in both (docs/sandbox.md, \"Provider dialects\"); the CDK context key `providerDialect` sets it in AWS",
  },
  {
    variables: ['PROVIDER_AUTOFLOW_ACTION'],
    meaning:
      "The `action` of the inline transfer (banks without beneficiaries): the provider's name of the automated payment flow, 1 to 64 characters. The spec shows no values; set it to the name the provider gives this application's flow. The `spec` dialect's only: `dapi-v2` sends no `action` (no SDK of the provider sends a flow's name)",
  },
  {
    variables: ['WALLET_ACCOUNTS'],
    default: 'locally `wallet-aed`, `wallet-kwd`',
    meaning:
      "JSON array of receiving accounts: `id`, `currency`, `name`, `iban`, `accountNumber` (required: the wallet's beneficiary is recognised in a bank's list by it, never by name), `swiftCode`, `bankName`, `country` (full name), `countryCode` (two letters), `branchName`, `branchAddress`, `address`, `maxDeposit` (the largest deposit it takes, major units; default 100,000: 100,000.00 AED, 100,000.000 KWD)",
  },
  {
    variables: ['DEFAULT_WALLET_ACCOUNT_ID'],
    default: 'locally `wallet-aed`',
    meaning: 'The wallet account of a deposit that names none',
  },
  {
    variables: ['LONG_WAIT_SECONDS'],
    meaning: 'Cool-downs longer than this use a schedule, shorter ones a delayed message (tests: 2)',
  },
  {
    variables: ['INPUT_TTL_SECONDS'],
    meaning: "How long a deposit waits for the caller's answer",
  },
  {
    variables: ['STALL_AFTER_SECONDS'],
    meaning:
      "After this long without progress a deposit is re-driven (doubling with each re-drive); a deployment refuses less than 160, twice the longest step function's timeout (ensure-beneficiary's 80 s: a list, a creation and the list again for the new beneficiary's id, each up to `PROVIDER_TIMEOUT_MS`), so a step still running is never re-driven",
  },
  {
    variables: ['MAX_RETRIES'],
    meaning:
      'Retries of a read with an unknown outcome, or of a busy connection; and waits after a cool-down refusal',
  },
  {
    variables: ['COOL_DOWN_RETRY_SECONDS'],
    meaning:
      'The shortest wait after the bank refuses a transfer for a cool-down, whatever instant (or none, or a past one) it names',
  },
  {
    variables: ['MAX_REDRIVES'],
    meaning: 'Re-drives by the sweeper of a deposit that does not move, before it fails `STEP_FAILED`',
  },
  {
    variables: ['BANK_MEMORY_SECONDS'],
    meaning:
      "How long a connection's bank metadata (bounds, cool-down, whether it takes beneficiaries) is remembered, so that a repeat deposit asks the bank nothing but its transfer; `0` asks on every deposit. A bank that changes its metadata is seen within this time, or at once after a transfer refusal that contradicts it (`BENEFICIARY_REQUIRED`, `BENEFICIARY_NOT_SUPPORTED`, `AMOUNT_BELOW_MINIMUM`: the remembered metadata is forgotten)",
  },
  {
    variables: ['SOURCE_BANK_MEMORY_SECONDS'],
    meaning:
      'How long the bank metadata a payment source read is remembered for its connection (30 days): the deposits it prepared skip the ask. Forgotten early on the same contradicting refusals',
  },
  {
    variables: ['RECONCILE_MAX_POLLS'],
    meaning:
      'Reads of a transfer operation the bank accepted before its outcome is given up as unknown (`TRANSFER_OUTCOME_UNKNOWN`, for an operator): some five hours of them with the default cap',
  },
  {
    variables: ['RECONCILE_POLL_CAP_SECONDS'],
    meaning:
      'The longest delay between two reads of a transfer operation: 1 s after the submission, doubling up to it (at most 900)',
  },
  {
    variables: ['WEBHOOK_URL', 'WEBHOOK_SECRET'],
    default: 'unset',
    meaning:
      'Where deposit events go (`https://`, or `http://` to the local host only, like `PROVIDER_BASE_URL`), and the Standard Webhooks signing secret; at `npm start`, a `WEBHOOK_URL` without a secret is signed with the local one `npm run listen` verifies with',
  },
  {
    variables: ['WEBHOOK_PREVIOUS_SECRET'],
    default: 'unset',
    meaning:
      'The signing secret before `WEBHOOK_SECRET`, while a rotation overlaps: each delivery is then signed with both (two signatures in `webhook-signature`, as Standard Webhooks allows), so that a receiver holding either verifies it. In AWS the previous secret is the `AWSPREVIOUS` version of the secret `WEBHOOK_SECRET_ARN` names, while it has one ("The webhook signing secret", deploying.md)',
  },
  {
    variables: ['LISTEN_PORT'],
    default: '`3003`',
    meaning:
      "Where `npm run listen` receives the local stack's webhooks and prints each event, verified (give `npm start` `WEBHOOK_URL=http://127.0.0.1:3003`)",
  },
  {
    variables: ['WEBHOOK_TIMEOUT_MS', 'WEBHOOK_RETRY_BASE_SECONDS'],
    meaning: 'Per delivery; first retry delay (doubling, at most an hour)',
  },
  {
    variables: ['CREDENTIALS_KEY_ARN', 'LOCAL_ENCRYPTION_KEY'],
    default: 'local: a random key per start',
    meaning: 'KMS key (AWS) or 32-byte base64 AES key (local) for credentials at rest',
  },
  {
    variables: ['OWNER_KEY', 'OWNER_KEY_SECRET_ARN'],
    default: 'local: `OWNER_KEY` when set, else a random key per start; AWS: set by the CDK stack',
    meaning:
      'The owner key: what callers\' access tokens and user secrets are keyed by (HMAC-SHA256: `ownerKey`, `readerKey`, and so the leases and claims). `OWNER_KEY` is base64 of at least 32 random bytes (`openssl rand -base64 32`); a missing or shorter one stops the handler at start, naming it. In AWS the Secrets Manager secret generated by the stateful stack (`OwnerKeySecretArn`), read once per cold start by the routes that take a token only. See "The owner key" before changing it',
  },
  {
    variables: ['DEPOSITS_TABLE_NAME', 'SANDBOX_TABLE_NAME'],
    default: 'set by the stack',
    meaning: 'The tables',
  },
  {
    variables: [
      'RESOLVE_BANK_QUEUE_URL',
      'ENSURE_BENEFICIARY_QUEUE_URL',
      'WAIT_COOLDOWN_QUEUE_URL',
      'TRANSFER_QUEUE_URL',
      'RECONCILE_QUEUE_URL',
      'NOTIFY_QUEUE_URL',
    ],
    default: 'set by the stack',
    meaning:
      'The step queues, and the notify queue (only with a webhook); a handler reads only the URLs of the queues it sends to',
  },
  {
    variables: ['OUTBOX_RELAY_DLQ_URL'],
    default: 'set by the stack',
    meaning:
      "The outbox relay's DLQ (only the relay has it): where it sets aside, whole, each event it could not send to the notify queue after its tries (docs/operating.md)",
  },
  {
    variables: [
      'RESOLVE_BANK_QUEUE_ARN',
      'ENSURE_BENEFICIARY_QUEUE_ARN',
      'WAIT_COOLDOWN_QUEUE_ARN',
      'TRANSFER_QUEUE_ARN',
      'RECONCILE_QUEUE_ARN',
    ],
    default: 'set by the stack',
    meaning:
      "The queues schedules wake (a question's expiry; a look-up after a cool-down; the transfer after a cool-down)",
  },
  {
    variables: ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_DLQ_ARN'],
    default: 'set by the stack',
    meaning:
      "The schedule group, the role that may send to the queues that receive wake-ups, the scheduler's DLQ",
  },
  {
    variables: ['DYNAMODB_ENDPOINT', 'SQS_ENDPOINT', 'SCHEDULER_ENDPOINT'],
    default: 'unset in AWS',
    meaning: 'The local stand-ins, set by the local stack',
  },
  {
    variables: ['SANDBOX_APP_SECRET'],
    meaning: "The sandbox application's secret (locally)",
  },
  {
    variables: ['WEBHOOK_SECRET_ARN', 'SANDBOX_APP_SECRET_ARN'],
    default: 'set by the CDK stacks',
    meaning:
      'In AWS the secrets come from Secrets Manager, read once per cold start; their values are never in the environment',
  },
  {
    variables: ['SANDBOX_ASYNC_DELAY_MS'],
    meaning:
      "How long the sandbox's banks take to carry an operation out: `sync: false` operations stay `initialized` that long, and `sync: true` requests are held that long (at most 25 s) before their answer",
  },
  {
    variables: ['SANDBOX_HOLD_MS'],
    meaning:
      "Longest the sandbox holds a request while its bank takes its time (at most 25000): past it, the request answers `202 initialized` with its operation's id, as the provider does with a call it cannot finish in time (in the `dapi-v2` dialect, which sends no `sync`, every call is held)",
  },
  {
    variables: ['SANDBOX_INPUT_TTL_SECONDS', 'SANDBOX_ACCESS_CODE_TTL_SECONDS'],
    meaning: 'Sandbox input and access-code lifetimes',
  },
  {
    variables: ['SANDBOX_TIMEOUT_MS'],
    meaning:
      "How long an injected timeout hangs (at most 25000: the fault budget inside the sandbox functions' 30 s)",
  },
  {
    variables: ['LOG_FORMAT'],
    default: '`lines` at `npm start` and in the test stacks; unset (JSON) in AWS',
    meaning:
      'How log lines are printed: JSON, which CloudWatch Logs Insights reads, or `lines`, one readable line each (time, level, service and function, message, then its own keys)',
  },
  {
    variables: ['POWERTOOLS_SERVICE_NAME'],
    default: 'set by the stacks: `deposits`, `sandbox`',
    meaning: "The service its logs and metrics name (Powertools' own variable)",
  },
  {
    variables: ['POWERTOOLS_METRICS_NAMESPACE'],
    meaning: 'The CloudWatch namespace of the deposit metrics',
  },
  {
    variables: ['POWERTOOLS_LOG_LEVEL'],
    default: '`INFO`',
    meaning:
      'Log level of the structured (Powertools) logs; at `INFO`, `npm start` also says each API request (route, status, time, request id) and each step a deposit takes',
  },
  {
    variables: ['JDK_JAVA_OPTIONS'],
    default: 'unset',
    meaning:
      "Options for the JVM of the local stack's DynamoDB Local (`npm start`, the tests' stacks), after its own (the first compiler tier only, one compiler thread, the serial collector: a local stack lives minutes), so that yours win (the `java` launcher's own variable)",
  },
  {
    variables: ['DDB_LOCAL_TELEMETRY'],
    default: '`0`',
    meaning:
      "DynamoDB Local's telemetry (its own variable), off for the local stack's (`npm start`, the tests' stacks) unless you set it: a local stack sends nothing anywhere",
  },
  {
    variables: ['LOG_AUDIT'],
    default: 'unset',
    meaning:
      "`1` at `npm start`: the operator API's calls are said too (their request lines and the audit lines of those that succeeded), which the console makes every 2 s; a refused or failed call is said either way",
  },
];
