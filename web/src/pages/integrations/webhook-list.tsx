/**
 * What the scanner and flow list pages share: the list of a user's webhook integrations, the form
 * dialog's target, the row awaiting a delete or rotate confirmation and those two calls, the audit
 * shown under the list, the credentials a creation or rotation issued (kept in the page's memory
 * only and gone once hidden: docs/architecture.md, "Secrets never leave"), and each row's buttons.
 */
import { Button, Group } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { usePhone } from './common';

/** An integration as the list shows it. */
interface Listed {
  id: number;
  name: string;
}

/**
 * The state of a list page of `base` (`GET base` lists, `DELETE base/<id>` deletes,
 * `POST base/<id>/rotate` issues new credentials `I`), cached under `key`.
 */
export function useWebhookList<T extends Listed, I extends object>(key: readonly string[], base: string) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: key, queryFn: () => api<{ data: T[] }>('GET', base) });
  const [issued, setIssued] = useState<(I & { name: string }) | undefined>();
  // The form's target stays while its dialog closes, so the dialog does not empty mid-transition.
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<T | 'new'>('new');
  const openForm = (target: T | 'new') => {
    setEditing(target);
    setFormOpen(true);
  };
  const [deleting, setDeleting] = useState<T | undefined>();
  const [rotating, setRotating] = useState<T | undefined>();
  const [viewing, setViewing] = useState<number | undefined>();
  const remove = useMutation({
    mutationFn: (id: number) => api('DELETE', `${base}/${id}`),
    onSuccess: async (_r, id) => {
      setDeleting(undefined);
      if (viewing === id) setViewing(undefined);
      await queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const rotate = useMutation({
    mutationFn: (t: T) => api<I>('POST', `${base}/${t.id}/rotate`),
    onSuccess: (r, t) => {
      setRotating(undefined);
      setIssued({ ...r, name: t.name });
    },
  });
  const rows = list.data?.data ?? [];
  return {
    list,
    rows,
    /** The integration whose audit is shown under the list. */
    shown: rows.find((t) => t.id === viewing),
    issued,
    setIssued,
    formOpen,
    setFormOpen,
    editing,
    openForm,
    deleting,
    setDeleting,
    rotating,
    setRotating,
    setViewing,
    remove,
    rotate,
  };
}

/** A row's buttons: its audit (`audit` names it: Runs, Deliveries), edit, rotate and delete. */
export function RowActions<T extends Listed>({
  row,
  audit,
  list,
}: {
  row: T;
  audit: string;
  list: Pick<
    ReturnType<typeof useWebhookList<T, object>>,
    'setViewing' | 'openForm' | 'setRotating' | 'setDeleting'
  >;
}) {
  const phone = usePhone();
  return (
    <Group gap={4} wrap={phone ? 'wrap' : 'nowrap'} justify={phone ? 'flex-start' : 'flex-end'}>
      <Button
        size="xs"
        variant="light"
        onClick={() => list.setViewing(row.id)}
        aria-label={`${audit} of ${row.name}`}
      >
        {audit}
      </Button>
      <Button size="xs" variant="light" onClick={() => list.openForm(row)} aria-label={`Edit ${row.name}`}>
        Edit
      </Button>
      <Button
        size="xs"
        variant="light"
        color="orange"
        onClick={() => list.setRotating(row)}
        aria-label={`Rotate the webhook of ${row.name}`}
      >
        Rotate
      </Button>
      <Button
        size="xs"
        variant="light"
        color="red"
        onClick={() => list.setDeleting(row)}
        aria-label={`Delete ${row.name}`}
      >
        Delete
      </Button>
    </Group>
  );
}
