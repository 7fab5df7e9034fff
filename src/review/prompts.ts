import { describeRequest, refusal, VERB, type DecisionKind, type Prompt } from './decisions.js';
import { parseFilter } from './filter.js';
import { roleKeyOf, roleOnRequest, rolesFor } from './impact.js';
import type { KeyPress } from './keys.js';
import { findRequest, selected } from './rows.js';
import { only, reload, say, type QueueState, type Step } from './state.js';

/**
 * The queue's prompts (pure): the comment line, the confirmation, the role picker and the filter line,
 * and starting a decision. The model hands every key to `onPromptKey` while a prompt is open.
 */

export function startDecision(s: QueueState, kind: DecisionKind, role?: string): Step {
  const r = selected(s);
  if (!r) return only(s);
  const why = refusal(kind, r, { readonly: s.readonly, inflight: s.inflight[r.id] !== undefined });
  if (why) return say(s, 'warning', why);
  return only({
    ...s,
    message: undefined,
    prompt: { kind: 'comment', intent: { kind, id: r.id, ...(role ? { role } : {}) }, draft: '' },
  });
}

export function startRoleChange(s: QueueState): Step {
  const r = selected(s);
  if (!r) return only(s);
  const why = refusal('approve', r, { readonly: s.readonly, inflight: s.inflight[r.id] !== undefined });
  if (why) return say(s, 'warning', why);
  if (s.roles.state === 'loading') return say(s, 'info', 'the roles are still loading');
  if (s.roles.state === 'failed')
    return say(s, 'error', `could not read the roles (${s.roles.message}): press R to retry`);
  // Choices are role identities (`document#viewer`); the service is sent the key, which it resolves on the instance the same way.
  const choices = rolesFor(r, s.roles.value);
  if (choices.length === 0) return say(s, 'warning', `no role grants anything on ${r.resource ?? 'this tenant'}`);
  const asked = roleOnRequest(r, s.roles.value, r.role);
  return only({
    ...s,
    message: undefined,
    prompt: { kind: 'role', id: r.id, choices, asked, cursor: Math.max(0, choices.indexOf(asked)) },
  });
}

/** A one-line editor: printable input appends, backspace removes, ctrl-u clears. */
function editLine(draft: string, k: KeyPress): string {
  if (k.name === 'backspace') return [...draft].slice(0, -1).join('');
  if (k.ctrl && k.input === 'u') return '';
  if (k.ctrl || k.meta || k.name) return draft;
  // Pasted text may carry line breaks: one line only.
  return draft + k.input.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
}

export function onPromptKey(s: QueueState, p: Prompt, k: KeyPress): Step {
  const close = (extra: Partial<QueueState> = {}) => only({ ...s, prompt: undefined, ...extra });
  switch (p.kind) {
    case 'filter':
      if (k.name === 'escape') return close();
      if (k.name === 'return')
        return only(reload(s, { prompt: undefined, filter: parseFilter(p.draft), cursor: 0, top: 0, view: 'list' }));
      return only({ ...s, prompt: { ...p, draft: editLine(p.draft, k) } });
    case 'role': {
      if (k.name === 'escape') return close();
      const n = p.choices.length;
      if (k.name === 'down' || k.input === 'j') return only({ ...s, prompt: { ...p, cursor: (p.cursor + 1) % n } });
      if (k.name === 'up' || k.input === 'k') return only({ ...s, prompt: { ...p, cursor: (p.cursor + n - 1) % n } });
      if (k.name === 'return')
        return startDecision({ ...s, prompt: undefined }, 'approve', roleKeyOf(p.choices[p.cursor]));
      return only(s);
    }
    case 'comment':
      if (k.name === 'escape') return close({ message: { kind: 'info', text: 'nothing was changed' } });
      if (k.name === 'return') {
        const comment = p.draft.trim();
        return only({ ...s, prompt: { kind: 'confirm', intent: { ...p.intent, ...(comment ? { comment } : {}) } } });
      }
      return only({ ...s, prompt: { ...p, draft: editLine(p.draft, k) } });
    case 'confirm': {
      // `[y/N]`: no is the default, so Enter answers no; only y decides.
      if (k.name === 'escape' || k.name === 'return' || k.input === 'n' || k.input === 'N')
        return close({ message: { kind: 'info', text: 'nothing was changed' } });
      if (k.input !== 'y' && k.input !== 'Y') return only(s);
      const r = findRequest(s, p.intent.id);
      if (!r) return close();
      return {
        state: {
          ...s,
          prompt: undefined,
          inflight: { ...s.inflight, [r.id]: p.intent },
          message: { kind: 'info', text: `${VERB[p.intent.kind].doing} ${describeRequest(r, p.intent.role)}…` },
        },
        effects: [{ type: 'decide', intent: p.intent, request: r }],
      };
    }
  }
}
