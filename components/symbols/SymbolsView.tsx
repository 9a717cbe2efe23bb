'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type Settled, errorMessage, seeded } from '@/components/data/seed';
import { EditableMap } from '@/components/kv/EditableMap';
import { useTRPC } from '@/components/trpc/react';
import { Code, EmptyState, ErrorPanel } from '@/components/ui/Notice';

const KIND = { noun: 'symbol', idLabel: 'Id', valueLabel: 'Value', idPlaceholder: 'F12', refKind: 'symbol' as const, valuePlaceholder: 'src/matching/engine.ts' };

export function SymbolsView({ initial, focus }: { initial: Settled<Record<string, string>>; focus?: string }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.symbols.list.queryOptions(undefined, seeded(initial)));
  const refresh = () => qc.invalidateQueries({ queryKey: trpc.symbols.pathKey() });
  const set = useMutation(trpc.symbols.set.mutationOptions({ onSuccess: refresh }));
  const del = useMutation(trpc.symbols.delete.mutationOptions({ onSuccess: refresh }));
  const error = errorMessage(list.error, initial, list.data !== undefined);
  return (
    <>
      {error && <ErrorPanel className="mb-4" message={error} />}
      {list.data && (
        <EditableMap
          kind={KIND}
          focus={focus}
          entries={list.data}
          onSet={(id, value) => set.mutateAsync({ id, value })}
          onDelete={(id) => del.mutateAsync({ id })}
          empty={
            <EmptyState title="No symbols yet">
              Add one above, or from a shell: <Code>heimdall-resolve set F12 src/matching/engine.ts</Code>
            </EmptyState>
          }
        />
      )}
    </>
  );
}
