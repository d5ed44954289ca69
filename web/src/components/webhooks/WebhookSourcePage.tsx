/**
 * The one page of the console's inbound-webhook sources — strategies, Chartink scanners, flows
 * (architecture: "Inbound webhooks have one way in") — that each of their pages configures: the
 * heading and what a new source is made with, the list with each source's state, the form of a
 * new or edited source in a dialog, the credentials a creation or rotation issued (shown once,
 * in this page's memory only: architecture, "Secrets never leave"), rotate and delete behind a
 * confirmation saying what they do, and one source's audit (its deliveries or runs) under the list.
 */
import { Button, Card, Container, Group, Modal, Stack, Text, Title } from '@mantine/core';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import { useState, type ComponentType, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorState, Loading } from '../states';
import { AuditCard } from './AuditCard';
import { AuditTable, type Parts } from './AuditTable';
import type { Column } from './columns';
import { Confirm } from './Confirm';
import { IssuedCredentials, type Credential } from './credentials';
import type { SourceFormProps } from './SourceForm';
import { RowActions, SourceList, type RowHandlers, type Source, type SourceCard } from './SourceList';
import { usePhone } from './use-phone';

/** A change behind a confirmation (rotate, delete): its dialog's words and its call, by source id. */
export interface Guarded<R> {
  call: UseMutationResult<R, Error, number>;
  title: string;
  /** The dialog's text, naming the source (undefined while the dialog closes). */
  says: (name: string | undefined) => ReactNode;
}

/**
 * A source's audit (its deliveries or runs, newest first): the button's and panel's name, the
 * query of one source's audit, the columns, and what a row unfolds into.
 */
export interface SourceAudit<A extends { id: number }, P = unknown> {
  /** "Deliveries", "Runs": the row's button, the panel's title ("Runs of <name>"). */
  label: string;
  /** The audit of the source `id` (a hook: the panel calls it). */
  use(id: number): UseQueryResult<{ data: A[] }>;
  empty: string;
  columns: readonly Column<A>[];
  /** Each row's test id (`delivery-row`, `run-row`). */
  rowTestId: string;
  /** What a row unfolds into (the page's renderer of a row's detail)… */
  parts?: Omit<Parts<A, P>, 'label'>;
  /** …and the unfolded table's accessible name. */
  partsLabel?: (row: A) => string;
}

/** The changes behind a confirmation, and the words of its button and of its refusal. */
type Change = 'remove' | 'rotate';
const CHANGES: readonly Change[] = ['remove', 'rotate'];
const WORDS: Record<Change, { verb: string; refused: string }> = {
  remove: { verb: 'Delete', refused: 'Not deleted' },
  rotate: { verb: 'Rotate', refused: 'Not rotated' },
};

/** The confirmation of a guarded change of `target` (none: closed), with the server's refusal. */
function ConfirmChange<T extends Source, R>({
  change,
  target,
  verb,
  refused,
  onConfirm,
  onClose,
}: {
  change: Guarded<R>;
  target: T | undefined;
  /** The confirm button's word ("Delete"). */
  verb: string;
  /** The refusal's title ("Not deleted"). */
  refused: string;
  onConfirm: (target: T) => void;
  onClose: () => void;
}) {
  const error = change.call.error;
  return (
    <Confirm
      opened={target !== undefined}
      title={change.title}
      confirm={verb}
      pending={change.call.isPending}
      onConfirm={() => target && onConfirm(target)}
      onClose={onClose}
      error={error && <ErrorState error={error} title={refused} />}
    >
      {change.says(target?.name)}
    </Confirm>
  );
}

/** The panel of one source's audit, with Refresh and Close. */
function AuditPanel<A extends { id: number }>({
  audit,
  source,
  onClose,
}: {
  audit: SourceAudit<A>;
  source: Source;
  onClose: () => void;
}) {
  const title = `${audit.label} of ${source.name}`;
  const parts = audit.parts && { ...audit.parts, label: audit.partsLabel ?? (() => title) };
  return (
    <AuditCard
      title={title}
      query={audit.use(source.id)}
      loading={`Loading ${audit.label.toLowerCase()}…`}
      empty={audit.empty}
      onClose={onClose}
    >
      {(rows) => (
        <AuditTable
          label={title}
          rows={rows}
          columns={audit.columns}
          minWidth={640}
          rowTestId={audit.rowTestId}
          parts={parts}
        />
      )}
    </AuditCard>
  );
}

export interface WebhookSourcePageProps<T extends Source, I extends object, A extends { id: number }> {
  /** The page's heading, also the list's accessible name ("Scanners"). */
  title: string;
  /** Beside the heading (the live socket's state). */
  titleAside?: ReactNode;
  /** The button making a new source: it opens the form, or goes to `to` (a wizard). */
  create: { label: string; to?: string };
  intro: ReactNode;
  list: UseQueryResult<{ data: T[] }>;
  /** The list's loading words ("Loading scanners…"). */
  loading: string;
  /** What the page shows while there is no source. */
  empty: ReactNode;
  columns: readonly Column<T>[];
  /** Below this width the table scrolls sideways within its card. */
  minWidth: number;
  card: SourceCard<T>;
  /** The form of a new or edited source, in a dialog of `size` titled `newTitle` or "Edit <name>". */
  form?: { component: ComponentType<SourceFormProps<T, I>>; newTitle: string; size: string };
  /** The credentials a creation or rotation issued: the notice's title and the values shown once. */
  issued?: { title: (name: string) => string; lines: (issued: I) => readonly Credential[] };
  rotate?: Guarded<I>;
  remove?: Guarded<unknown>;
  /** A source's audit, opened under the list by its row's button. */
  audit?: SourceAudit<A>;
  /** Below everything: a warning about the sources' state. */
  footer?: (rows: readonly T[]) => ReactNode;
}

export function WebhookSourcePage<
  T extends Source,
  I extends object = object,
  A extends { id: number } = { id: number },
>(p: WebhookSourcePageProps<T, I, A>) {
  const phone = usePhone();
  const rows = p.list.data?.data ?? [];
  const [issued, setIssued] = useState<(I & { name: string }) | undefined>();
  // The form's target stays while its dialog closes, so the dialog does not empty mid-transition.
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<T | 'new'>('new');
  const openForm = (target: T | 'new') => {
    setEditing(target);
    setFormOpen(true);
  };
  // The source whose delete or rotate confirmation is open.
  const [asking, setAsking] = useState<{ change: Change; row: T } | undefined>();
  const ask = (change: Change) => (row: T) => setAsking({ change, row });
  const close = () => setAsking(undefined);
  const [viewing, setViewing] = useState<number | undefined>();
  const shown = rows.find((t) => t.id === viewing);

  const on: RowHandlers<T> = {
    ...(p.audit && { audit: { label: p.audit.label, open: (t: T) => setViewing(t.id) } }),
    ...(p.form && { edit: openForm }),
    ...(p.rotate && { rotate: ask('rotate') }),
    ...(p.remove && { remove: ask('remove') }),
  };
  const actions = Object.keys(on).length > 0 ? (t: T) => <RowActions row={t} on={on} /> : undefined;
  const remove = (t: T) =>
    p.remove?.call.mutate(t.id, {
      onSuccess: () => {
        close();
        if (viewing === t.id) setViewing(undefined);
      },
    });
  const rotate = (t: T) =>
    p.rotate?.call.mutate(t.id, {
      onSuccess: (r) => {
        close();
        setIssued({ ...r, name: t.name });
      },
    });
  const form = p.form;

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" mb="md">
        <Group gap="sm">
          <Title order={1} size="h2">
            {p.title}
          </Title>
          {p.titleAside}
        </Group>
        {p.create.to ? (
          <Button component={Link} to={p.create.to}>
            {p.create.label}
          </Button>
        ) : (
          <Button onClick={() => openForm('new')}>{p.create.label}</Button>
        )}
      </Group>
      <Text c="dimmed" size="sm" mb="md">
        {p.intro}
      </Text>
      <Stack gap="lg">
        {issued && p.issued && (
          <IssuedCredentials
            title={p.issued.title(issued.name)}
            lines={p.issued.lines(issued)}
            onDone={() => setIssued(undefined)}
          />
        )}
        <Card withBorder>
          {p.list.isPending && <Loading label={p.loading} />}
          {p.list.isError && <ErrorState error={p.list.error} />}
          {p.list.data && rows.length === 0 && p.empty}
          {rows.length > 0 && (
            <SourceList
              label={p.title}
              rows={rows}
              columns={p.columns}
              minWidth={p.minWidth}
              card={p.card}
              actions={actions}
            />
          )}
        </Card>
        {shown && p.audit && (
          <AuditPanel key={shown.id} audit={p.audit} source={shown} onClose={() => setViewing(undefined)} />
        )}
      </Stack>
      {form && (
        <Modal
          opened={formOpen}
          onClose={() => setFormOpen(false)}
          title={editing === 'new' ? form.newTitle : `Edit ${editing.name}`}
          size={form.size}
          fullScreen={phone}
        >
          <form.component
            key={editing === 'new' ? 'new' : editing.id}
            source={editing === 'new' ? undefined : editing}
            onCancel={() => setFormOpen(false)}
            onSaved={(made) => {
              setFormOpen(false);
              if (made) setIssued(made);
            }}
          />
        </Modal>
      )}
      {CHANGES.map((change) => {
        const guarded = p[change];
        return (
          guarded && (
            <ConfirmChange
              key={change}
              change={guarded}
              target={asking?.change === change ? asking.row : undefined}
              {...WORDS[change]}
              onConfirm={change === 'remove' ? remove : rotate}
              onClose={close}
            />
          )
        );
      })}
      {p.footer?.(rows)}
    </Container>
  );
}
