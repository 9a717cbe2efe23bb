'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { EditableMap } from '@/components/kv/EditableMap';
import { useTRPC } from '@/components/trpc/react';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';

const KIND = { noun: 'fact', idLabel: 'Key', valueLabel: 'Value', idPlaceholder: 'dev_port', refKind: 'fact' as const, valuePlaceholder: '5173' };

export function BlackboardView({ initial, focus }: { initial: Settled<Record<string, string>>; focus?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.blackboard.list.queryOptions(undefined, seeded(initial)));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.blackboard.pathKey() });
  const set = useMutation(trpc.blackboard.set.mutationOptions({ onSuccess: refresh }));
  const del = useMutation(trpc.blackboard.delete.mutationOptions({ onSuccess: refresh }));
  const error = errorMessage(list.error, initial, list.data !== undefined);
  return (
    <>
      {error && <ErrorPanel className="mb-4" message={error} />}
      {list.data && (
        <EditableMap
          kind={KIND}
          focus={focus}
          entries={list.data}
          onSet={(key, value) => set.mutateAsync({ key, value })}
          onDelete={(key) => del.mutateAsync({ key })}
          empty={
            <EmptyState title="No facts yet">
              Agents record what they discover once (ports, versions, quirks): <Code>heimdall-blackboard set dev_port 5173</Code>
            </EmptyState>
          }
        />
      )}
    </>
  );
}
