import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** Loading: a spinner with a label screen readers announce. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center p="xl" role="status" aria-live="polite">
      <Loader size="sm" aria-hidden />
      <Text ml="sm" c="dimmed">
        {label}
      </Text>
    </Center>
  );
}

/** An error as the server worded it (never a stack trace). */
export function ErrorState({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const message =
    error instanceof ApiError
      ? error.message
      : error instanceof Error
        ? error.message
        : 'The server could not be reached.';
  return (
    <Alert color="red" title={title} role="alert">
      {message}
    </Alert>
  );
}

/** Nothing to show yet, said plainly. */
export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" ta="center" p="md">
      {children}
    </Text>
  );
}
