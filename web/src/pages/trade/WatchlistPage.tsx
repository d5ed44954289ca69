/**
 * The market watch (docs/rules/web.md#market-watch): the user's named lists, stored on the server
 * (docs/rules/watchlists.md), one tab each (the chosen one in the address, `?list=<id>`); a list's
 * instruments tick with the live feed (WatchTable.tsx); add by searching the master contract,
 * remove, reorder by drag, the ↑ ↓ buttons or Alt+↑ / Alt+↓; create, rename and delete lists.
 */
import { Alert, Button, Group, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/Tabs.css';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { useLive } from '../../api/live';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { LiveStatus } from '../../components/LiveStatus';
import { SectionCard } from '../../components/Section';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  useCreateList,
  useDeleteList,
  useRemoveItem,
  useRenameList,
  useReorderItems,
  useWatchlists,
  type WatchList,
} from '../../features/watchlist/api/watchlists';
import { AddSymbol } from './watch/AddSymbol';
import { WatchTable } from './watch/WatchTable';

/** The most instruments one list holds (the server's bound, docs/rules/watchlists.md). */
const MAX_ITEMS = 100;

const messageOf = (e: unknown) => (e instanceof ApiError ? e.message : 'The server could not be reached.');

/** A list's name typed in: creating a list or renaming one. */
function NameForm({
  label,
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  label: string;
  initial: string;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit(name: string): void;
  onCancel?(): void;
}) {
  const [name, setName] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(name.trim());
  };
  return (
    <form onSubmit={submit} aria-label={label}>
      <Group align="flex-end" gap="xs">
        <TextInput
          label={label}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          maxLength={40}
          required
          withAsterisk={false}
          error={error ? messageOf(error) : undefined}
          data-autofocus
          style={{ flex: '1 1 12rem' }}
        />
        <Button type="submit" loading={pending} disabled={name.trim() === ''}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </Group>
    </form>
  );
}

function ListView({ list }: { list: WatchList }) {
  const reorder = useReorderItems();
  const remove = useRemoveItem();
  return (
    <Stack gap="sm">
      <AddSymbol list={list} full={list.items.length >= MAX_ITEMS} />
      {(reorder.error || remove.error) && (
        <Alert color="red" role="alert" title="Not changed">
          {messageOf(reorder.error ?? remove.error)}
        </Alert>
      )}
      {list.items.length === 0 ? (
        <Empty>No symbol in {list.name} yet: search above to add one.</Empty>
      ) : (
        <WatchTable
          label={`Market watch ${list.name}`}
          items={list.items}
          onReorder={(ids) => reorder.mutate({ listId: list.id, itemIds: ids })}
          onRemove={(item) => remove.mutate({ listId: list.id, itemId: item.id })}
        />
      )}
      <Text size="xs" c="dimmed">
        {list.items.length} of {MAX_ITEMS} symbols. Arrow keys choose a row; B buys, S sells, Enter opens the
        chart, Alt+↑ / Alt+↓ move it, Delete removes it.
      </Text>
    </Stack>
  );
}

export default function WatchlistPage() {
  const live = useLive();
  const lists = useWatchlists();
  const create = useCreateList();
  const rename = useRenameList();
  const del = useDeleteList();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState<WatchList | undefined>(undefined);

  const all = lists.data ?? [];
  const wanted = Number(params.get('list'));
  const current = all.find((l) => l.id === wanted) ?? all[0];
  const choose = (id: number) => setParams({ list: String(id) }, { replace: true });

  const createList = (name: string) =>
    create.mutate(name, {
      onSuccess: (made) => {
        setCreating(false);
        choose(made.id);
      },
    });

  return (
    <Stack gap="md" maw={960}>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Market watch
        </Title>
        <LiveStatus state={live.state} />
      </Group>
      {lists.isPending ? (
        <Loading label="Reading your lists…" />
      ) : lists.isError ? (
        <ErrorState error={lists.error} title="The lists could not be read" />
      ) : all.length === 0 ? (
        <SectionCard title="Your first list">
          <NameForm
            label="List name"
            initial="Watchlist 1"
            submitLabel="Create the list"
            pending={create.isPending}
            error={create.error}
            onSubmit={createList}
          />
        </SectionCard>
      ) : (
        <>
          <Group justify="space-between" align="flex-start" gap="xs">
            <Tabs
              value={current ? String(current.id) : null}
              onChange={(v) => v && choose(Number(v))}
              variant="pills"
              style={{ flex: '1 1 auto' }}
            >
              <Tabs.List aria-label="Your lists">
                {all.map((l) => (
                  <Tabs.Tab key={l.id} value={String(l.id)}>
                    {l.name} ({l.items.length})
                  </Tabs.Tab>
                ))}
              </Tabs.List>
            </Tabs>
            <Group gap="xs">
              <Button size="xs" variant="default" onClick={() => setCreating((c) => !c)}>
                New list
              </Button>
              {current && (
                <>
                  <Button size="xs" variant="default" onClick={() => setRenaming((r) => !r)}>
                    Rename
                  </Button>
                  <Button size="xs" variant="default" color="red" onClick={() => setDeleting(current)}>
                    Delete list
                  </Button>
                </>
              )}
            </Group>
          </Group>
          {creating && (
            <NameForm
              label="New list's name"
              initial=""
              submitLabel="Create"
              pending={create.isPending}
              error={create.error}
              onSubmit={createList}
              onCancel={() => setCreating(false)}
            />
          )}
          {renaming && current && (
            <NameForm
              key={current.id}
              label={`New name of ${current.name}`}
              initial={current.name}
              submitLabel="Rename"
              pending={rename.isPending}
              error={rename.error}
              onSubmit={(name) =>
                rename.mutate({ id: current.id, name }, { onSuccess: () => setRenaming(false) })
              }
              onCancel={() => setRenaming(false)}
            />
          )}
          {del.error && (
            <Alert color="red" role="alert" title="Not deleted">
              {messageOf(del.error)}
            </Alert>
          )}
          {current && <ListView key={current.id} list={current} />}
        </>
      )}
      <ConfirmDelete
        row={deleting}
        title="Delete this list?"
        remove={{
          isPending: del.isPending,
          mutate: (id) => del.mutate(id, { onSettled: () => setDeleting(undefined) }),
        }}
        onClose={() => setDeleting(undefined)}
      >
        {(l) => `${l.name} and its ${l.items.length} symbols go; the instruments and your orders stay.`}
      </ConfirmDelete>
    </Stack>
  );
}
