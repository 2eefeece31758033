// The operator's actions on one deposit: resolve an unknown outcome (or approve another operator's
// resolution to done, when its amount needs a second operator), cancel, re-drive now. Built
// once per deposit opened (a refresh must not wipe what the operator is typing), shown or hidden as
// the deposit changes.
import { OpsError, operatorApi } from './api.js';
import { h, replace } from './dom.js';
import { isOutcomeUnknown } from './timeline.js';

const final = (deposit) => deposit.status === 'done' || deposit.status === 'failed';

/**
 * @param {string} operationID
 * @param {{ onDone: (answer?: unknown) => void }} hooks
 */
export function actionsFor(operationID, hooks) {
  const result = h('p', { class: 'action-result', testid: 'action-result', role: 'status' });
  const report = (...content) => replace(result, ...content);

  /** Runs one action: buttons off meanwhile, its answer reported, the detail refreshed. */
  async function act(button, label, call) {
    button.disabled = true;
    report(`${label}...`);
    try {
      const answer = await call();
      // 202: a resolution to done above the approval threshold, proposed: it waits for another operator.
      report(
        answer?.pendingResolution
          ? `${label}: proposed; a second, different operator must approve it`
          : `${label}: done`,
      );
      hooks.onDone(answer);
    } catch (error) {
      const why =
        error instanceof OpsError
          ? [h('b', { testid: 'action-error-type' }, error.type), ` ${error.msg}`]
          : String(error);
      report([`${label} refused: `, why]);
      hooks.onDone();
    } finally {
      button.disabled = false;
    }
  }

  // Resolve: the operator found out, at the provider, whether the transfer happened.
  const outcome = h(
    'select',
    { testid: 'resolve-outcome', name: 'outcome' },
    h('option', { value: 'done' }, 'done: the money moved'),
    h('option', { value: 'failed' }, 'failed: no transfer was executed'),
  );
  const reference = h('input', {
    testid: 'resolve-reference',
    name: 'reference',
    placeholder: "the provider's transfer reference",
    maxlength: 200,
  });
  const referenceLabel = h('label', {}, 'Reference ', reference);
  const resolveReason = h('textarea', {
    testid: 'resolve-reason',
    name: 'reason',
    rows: 2,
    maxlength: 500,
    placeholder: 'what you checked, and where',
  });
  const resolveButton = h('button', { type: 'submit', testid: 'resolve-submit' }, 'Resolve');
  const showReference = () => {
    referenceLabel.hidden = outcome.value !== 'done';
  };
  outcome.addEventListener('change', showReference);
  showReference();
  const resolveForm = h(
    'form',
    {
      class: 'action',
      testid: 'resolve-form',
      onsubmit: (event) => {
        event.preventDefault();
        const request = {
          operationID,
          outcome: outcome.value,
          reason: resolveReason.value.trim(),
          ...(outcome.value === 'done' ? { reference: reference.value.trim() } : {}),
        };
        if (!request.reason) return report('Resolve: a reason is required');
        if (outcome.value === 'done' && !request.reference)
          return report('Resolve: the reference is required');
        void act(resolveButton, 'Resolve', () => operatorApi.resolve(request));
      },
    },
    h('h3', {}, 'Resolve the unknown outcome'),
    h('label', {}, 'Outcome ', outcome),
    referenceLabel,
    h('label', {}, 'Reason ', resolveReason),
    resolveButton,
  );

  // Approve: another operator's resolution to done, above the approval threshold, waits for a second
  // operator's (the API refuses its proposer's own, and a different reference or outcome).
  let pending;
  const pendingFacts = h('p', { testid: 'pending-resolution' });
  const approveReason = h('input', {
    testid: 'approve-reason',
    name: 'reason',
    maxlength: 500,
    placeholder: 'what you checked, and where',
  });
  const approveButton = h('button', { type: 'submit', testid: 'approve-submit' }, 'Approve');
  const approveForm = h(
    'form',
    {
      class: 'action',
      testid: 'approve-form',
      onsubmit: (event) => {
        event.preventDefault();
        const reason = approveReason.value.trim();
        if (!reason) return report('Approve: a reason is required');
        const request = { operationID, outcome: 'done', reference: pending?.reference, reason };
        void act(approveButton, 'Approve', () => operatorApi.resolve(request));
      },
    },
    h('h3', {}, 'Awaiting a second operator'),
    pendingFacts,
    h(
      'p',
      { class: 'muted' },
      'Another operator approves it, with the same reference; its proposer cannot. It lapses after a day.',
    ),
    h('label', {}, 'Reason ', approveReason),
    approveButton,
  );

  // Cancel: before the transfer only (the API refuses otherwise).
  const cancelReason = h('input', {
    testid: 'cancel-reason',
    name: 'reason',
    maxlength: 500,
    placeholder: 'why',
  });
  const cancelButton = h(
    'button',
    { type: 'submit', testid: 'cancel-submit', class: 'danger' },
    'Cancel deposit',
  );
  const cancelForm = h(
    'form',
    {
      class: 'action',
      testid: 'cancel-form',
      onsubmit: (event) => {
        event.preventDefault();
        const reason = cancelReason.value.trim();
        if (!reason) return report('Cancel: a reason is required');
        void act(cancelButton, 'Cancel', () => operatorApi.cancel(operationID, reason));
      },
    },
    h('h3', {}, 'Cancel'),
    h('label', {}, 'Reason ', cancelReason),
    cancelButton,
  );

  // Re-drive: the current step's message, now (as the sweeper would).
  const redriveButton = h(
    'button',
    {
      type: 'button',
      testid: 'redrive',
      onclick: () => void act(redriveButton, 'Re-drive', () => operatorApi.redrive(operationID)),
    },
    'Re-drive now',
  );
  const redriveBox = h(
    'div',
    { class: 'action', testid: 'redrive-box' },
    h('h3', {}, 'Re-drive'),
    redriveButton,
  );

  const none = h('p', { class: 'muted', testid: 'no-actions' }, 'The deposit is final: nothing to do.');
  const element = h(
    'section',
    { class: 'panel actions', testid: 'actions' },
    none,
    approveForm,
    resolveForm,
    cancelForm,
    redriveBox,
    result,
  );

  return {
    element,
    /** Shows the actions that apply to the deposit as it stands now. */
    update(deposit) {
      resolveForm.hidden = !isOutcomeUnknown(deposit);
      pending = isOutcomeUnknown(deposit) ? deposit.pendingResolution : undefined;
      approveForm.hidden = !pending;
      if (pending) {
        replace(
          pendingFacts,
          'done with reference ',
          h('code', { testid: 'pending-reference' }, pending.reference),
          ', proposed by ',
          h('b', { testid: 'pending-by' }, pending.by),
          ` at ${pending.at} (${pending.reason}); lapses at `,
          h('span', { testid: 'pending-expires' }, pending.expiresAt),
        );
      }
      cancelForm.hidden = final(deposit);
      redriveBox.hidden = final(deposit);
      none.hidden = !(resolveForm.hidden && cancelForm.hidden && redriveBox.hidden);
    },
  };
}
