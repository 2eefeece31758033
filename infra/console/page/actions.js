// The operator's actions on one deposit: resolve an unknown outcome, cancel, re-drive now. Built
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
      report(`${label}: done`);
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
      cancelForm.hidden = final(deposit);
      redriveBox.hidden = final(deposit);
      none.hidden = !(resolveForm.hidden && cancelForm.hidden && redriveBox.hidden);
    },
  };
}
