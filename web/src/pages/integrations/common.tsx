/**
 * Pieces the scanner and flow pages share: a credential shown once with a copy button (kept in the
 * page's memory only, never in storage or a URL, and gone once hidden — architecture "Secrets never
 * leave"), a confirmation dialog, the server's messages of a field prefix, and times.
 */
import { Alert, Badge, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { ApiError } from '../../api/client';
import { istDateTime } from '../../ist-time';

/** One value to copy: a label, the value in monospace, and its copy button. */
export function CopyLine({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code data-testid={testId} style={{ wordBreak: 'break-all', flex: 1 }}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant={copied ? 'filled' : 'light'}
              color={copied ? 'teal' : 'blue'}
              onClick={copy}
              aria-label={`Copy ${label.toLowerCase()}`}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

/**
 * The one-time display of new credentials, hidden (and forgotten) by "I have stored it"; `notice`
 * says why it is shown once (by default: only a digest is kept, rotating replaces it).
 */
export function ShownOnce({
  title,
  children,
  onDone,
  notice = 'Shown once: only a digest is stored, so it cannot be shown again — only replaced by rotating.',
}: {
  title: string;
  children: ReactNode;
  onDone: () => void;
  notice?: string;
}) {
  return (
    <Alert color="yellow" title={title} role="status" data-testid="shown-once">
      <Stack gap="sm">
        <Text size="sm">{notice}</Text>
        {children}
        <Group>
          <Button size="xs" variant="default" onClick={onDone}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

/** A yes/no dialog for a change that cannot be undone. */
export function Confirm({
  opened,
  title,
  children,
  confirm,
  pending,
  onConfirm,
  onClose,
  error,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirm: string;
  pending: boolean;
  onConfirm: () => void;
  onClose: () => void;
  error?: ReactNode;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        {error}
        <Group>
          <Button color="red" loading={pending} onClick={onConfirm}>
            {confirm}
          </Button>
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Whether the screen is a phone's (dialogs then fill it). */
export const usePhone = () => useMediaQuery('(max-width: 36em)') ?? false;

/** The server's messages of a field and of its sub-fields (`overrides.SBIN`), or undefined. */
export function prefixError(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  const msgs = Object.entries(err.fields)
    .filter(([k]) => k === field || k.startsWith(`${field}.`))
    .map(([k, v]) => (k === field ? v.join(' ') : `${k.slice(field.length + 1)}: ${v.join(' ')}`));
  return msgs.length > 0 ? msgs.join(' ') : undefined;
}

/** Whether every field the error names is one of the form's (so no general alert is needed). */
export function allShown(err: unknown, fields: readonly string[]): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  return keys.length > 0 && keys.every((k) => fields.some((f) => k === f || k.startsWith(`${f}.`)));
}

/** An epoch-millisecond time in IST, the clock of the trading windows and the server's messages. */
export const when: (ms: number) => string = istDateTime;

/** A delivery's or run's result as a coloured badge. */
export function ResultBadge({ result }: { result: string }) {
  const color =
    result === 'ok' || result === 'squareoff'
      ? 'green'
      : result === 'rejected_dedupe'
        ? 'gray'
        : result === 'failed' || result.includes('error')
          ? 'red'
          : 'orange';
  return (
    <Badge color={color} variant="light" style={{ textTransform: 'none', minWidth: 'max-content' }}>
      {result}
    </Badge>
  );
}

/** A per-item outcome (`success`, `error`, `skipped`, `done`, `failed`) as a badge. */
export function OutcomeBadge({ status }: { status: string }) {
  const color = status === 'success' || status === 'done' ? 'green' : status === 'skipped' ? 'gray' : 'red';
  return (
    <Badge color={color} variant="light" style={{ textTransform: 'none', minWidth: 'max-content' }}>
      {status}
    </Badge>
  );
}
