/**
 * What a book's actions show (cancel, close, modify, approve): the server's answer above the
 * book, and the confirmation a destructive action asks for first (docs/rules/web.md#desk-books).
 */
import { Alert, Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorState } from './states';

/** What the server answered to an action: its message, or the error's. */
export interface Outcome {
  ok: boolean;
  message: string;
}

/** The server's answer to the last action, above the book until dismissed. */
export function OutcomeAlert({ outcome, onClose }: { outcome: Outcome | undefined; onClose: () => void }) {
  if (!outcome) return null;
  return (
    <Alert
      color={outcome.ok ? 'green' : 'red'}
      title={outcome.ok ? 'Done' : 'Not done'}
      role={outcome.ok ? 'status' : 'alert'}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onClose}
      data-testid="book-outcome"
    >
      {outcome.message}
    </Alert>
  );
}

/**
 * A confirmation for a destructive action: says what will happen, runs it on confirm, shows the
 * server's refusal inside (the dialog stays open), and closes on success.
 */
export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  dismissLabel = 'Back',
  color = 'red',
  pending,
  error,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  dismissLabel?: string;
  color?: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        {error ? <ErrorState error={error} title="Not done" /> : null}
        <Group>
          <Button color={color} loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
          <Button variant="default" onClick={onClose}>
            {dismissLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The message of an error as the server worded it. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : 'The server could not be reached.';
}
