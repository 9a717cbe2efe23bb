'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/react';
import type { OperatorView } from '@/components/trpc/types';
import { Button } from '@/components/ui/Button';
import { Select } from '@/components/ui/Field';
import { OperatorNote } from './Operator';

export type MessageType = 'directive' | 'inform' | 'flag';

const TYPE_HINT: Record<MessageType, string> = {
  directive: 'change what you do',
  inform: 'context, no action needed',
  flag: 'needs attention at the next pause',
};

/** Where the dialog sends: one agent (from its row), or the team (@everyone / @anyone, chosen in the dialog). */
export type MessageTarget = { kind: 'agent'; address: string } | { kind: 'team' };

/**
 * Message an agent as Studio's operator: a modal dialog (focus moves into it, Escape closes it and
 * focus returns to the button that opened it). The sender is the operator, shown and never typed.
 */
export function MessageDialog({ target, operator, onClose, onSent }: { target: MessageTarget; operator: OperatorView; onClose: () => void; onSent: (text: string) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const types = (['directive', 'inform', 'flag'] as const).filter((t) => operator.sends.includes(t));
  const [type, setType] = useState<MessageType>(types.includes('directive') ? 'directive' : (types[0] ?? 'inform'));
  const [team, setTeam] = useState('@everyone');
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | null>(null);
  const to = target.kind === 'agent' ? target.address : team;

  const text = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // showModal focuses the first control (a radio); the message is what one writes first.
    text.current?.focus();
  }, []);

  const send = useMutation(
    trpc.agents.send.mutationOptions({
      onSuccess: (r) => {
        onSent(`Sent ${r.type} ${r.id} to ${r.to} as ${r.from}${r.pooled ? ' (the first agent to check in takes it)' : `: ${r.recipients.length} recipient${r.recipients.length === 1 ? '' : 's'}`}.${r.note ? ` ${r.note}` : ''}`);
        void qc.invalidateQueries({ queryKey: trpc.agents.pathKey() });
        ref.current?.close();
      },
      onError: (e) => setError(e.message),
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (body.trim() === '') {
      setError('Write the message first: the recipient reads it at its next check-in.');
      return;
    }
    send.mutate({ to, type, body });
  };

  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={`${id}-title`}
      className="m-auto w-[32rem] max-w-[calc(100vw-2rem)] rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-black/50"
      data-testid="message-dialog"
    >
      <form onSubmit={submit} className="space-y-3 p-4" noValidate>
        <h2 id={`${id}-title`} className="text-sm font-semibold text-slate-800">
          Message <span className="font-mono">{target.kind === 'agent' ? target.address : 'the team'}</span>
        </h2>
        <OperatorNote operator={operator} doing="Sent" />
        {target.kind === 'team' && (
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
            To
            <Select value={team} onChange={(e) => setTeam(e.target.value)} className="font-mono">
              <option value="@everyone">@everyone (a copy to every agent)</option>
              <option value="@anyone">@anyone (the first agent to check in)</option>
            </Select>
          </label>
        )}
        <fieldset className="space-y-1">
          <legend className="text-xs font-medium text-slate-600">Type</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {types.map((t) => (
              <label key={t} className="flex items-center gap-1.5">
                <input type="radio" name={`${id}-type`} value={t} checked={type === t} onChange={() => setType(t)} className="accent-indigo-600" />
                {t}
                <span className="text-xs text-slate-500">({TYPE_HINT[t]})</span>
              </label>
            ))}
          </div>
        </fieldset>
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
          Message
          <textarea
            ref={text}
            value={body}
            onChange={(e) => {
              setBody(e.target.value);
              setError(null);
            }}
            rows={4}
            required
            aria-required="true"
            className="rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm text-slate-900 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/20"
            placeholder="Pause writes to src/matching/ until the book diff lands"
          />
        </label>
        {error && (
          <p role="alert" className="text-sm text-rose-700">
            {error}
          </p>
        )}
        <div className="flex items-center justify-end gap-2">
          <Button variant="ghost" onClick={() => ref.current?.close()}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" disabled={send.isPending}>
            Send {type}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
