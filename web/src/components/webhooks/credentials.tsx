/**
 * Webhook credentials shown once (docs/rules/web.md#strategy-pages, docs/rules/scanner.md,
 * docs/rules/flow.md): each value with a copy button, kept in the page's memory only — never in
 * storage or a URL — and gone once hidden (architecture, "Secrets never leave").
 */
import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

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

/** One credential of a webhook: its label, value and the test id of its value. */
export interface Credential {
  label: string;
  value: string;
  testId: string;
}

/** A webhook's credentials just issued (its URL, token, secret), shown once with copy buttons. */
export function IssuedCredentials({
  title,
  lines,
  onDone,
}: {
  title: string;
  lines: readonly Credential[];
  onDone: () => void;
}) {
  return (
    <ShownOnce title={title} onDone={onDone}>
      {lines.map((l) => (
        <CopyLine key={l.label} label={l.label} value={l.value} testId={l.testId} />
      ))}
    </ShownOnce>
  );
}
