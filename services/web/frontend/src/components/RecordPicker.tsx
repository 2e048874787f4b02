/**
 * The dashboard's campaign or platform filter: a type-ahead picker whose choices the service finds (the
 * list's `q`), a few at a time. It is offered once the account is known to have a record of the kind, or
 * when one is chosen.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import { useDebounced } from '../hooks/debounced';
import { useCampaignList, usePublisherList } from '../hooks/workspace-lists';
import { Combobox } from './Combobox';

const CHOICES = 20;

export function RecordPicker({ kind, label, all, value, onChange }: { kind: 'campaign' | 'publisher'; label: string; all: string; value: string; onChange: (value: string) => void }) {
  const [typed, setTyped] = useState('');
  const q = useDebounced(typed.trim());
  const useList = kind === 'campaign' ? useCampaignList : usePublisherList;
  const any = useList({}, { limit: 1 });
  const found = useList({ q }, { limit: CHOICES });
  const path = kind === 'campaign' ? 'campaigns' : 'publishers';
  const chosen = useQuery({
    queryKey: [kind, value],
    enabled: value !== '',
    queryFn: ({ signal }) => apiBody<{ id: number; name?: string; link?: string }>(`/api/workspace/${path}/${encodeURIComponent(value)}`, { signal }),
  });
  if (!value && (!any.loaded || any.items.length === 0)) return null;
  const words = (record: { id: number; name?: string; link?: string }) => `#${record.id} ${record.name ?? record.link ?? ''}`;
  const choices = [{ value: '', label: all }, ...found.items.map((record) => ({ value: String(record.id), label: words(record) }))];
  return (
    <div className="filter-field">
      <Combobox
        label={label}
        value={value}
        valueLabel={value ? (chosen.data ? words(chosen.data) : `#${value}`) : all}
        choices={choices}
        onChange={onChange}
        onSearch={setTyped}
        loading={found.stale || found.isPending}
        placeholder={`Type to find a ${kind === 'campaign' ? 'campaign' : 'platform'}`}
        testId={`${kind}-picker`}
      />
    </div>
  );
}
