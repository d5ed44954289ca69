/**
 * The confirmation before a row is deleted (the administration tables): what goes, in words, and
 * "Delete" or "Cancel"; the server's refusal shows above the table.
 */
import { Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ConfirmModal } from './BookActions';

export function ConfirmDelete<T extends { id: number }>({
  row,
  title,
  remove,
  onClose,
  children,
}: {
  /** The row asked about; none while the dialog is closed. */
  row: T | undefined;
  title: string;
  /** The delete mutation, given the row's id. */
  remove: { mutate: (id: number) => void; isPending: boolean };
  onClose: () => void;
  /** What is deleted and what follows, in words. */
  children: (row: T) => ReactNode;
}) {
  return (
    <ConfirmModal
      opened={row !== undefined}
      title={title}
      confirmLabel="Delete"
      dismissLabel="Cancel"
      pending={remove.isPending}
      error={null}
      onConfirm={() => row && remove.mutate(row.id)}
      onClose={onClose}
    >
      {row && <Text>{children(row)}</Text>}
    </ConfirmModal>
  );
}
