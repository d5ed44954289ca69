/**
 * A check the page runs on demand and whose answer it shows (the install's diagnostics, the mail
 * diagnostics, a test alert): one button, the result's sentence beside it, the server's refusal
 * in words, then the result's details (docs/rules/web.md#field-messages).
 */
import { Button, Group, Stack, Text, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorState } from './states';

export function CheckRun<A, D>({
  run,
  select,
  label,
  variant,
  disabled = false,
  hint,
  gap,
  errorTitle,
  summary,
  children,
}: {
  /** The check's mutation (it takes no variables). */
  run: { mutate: () => void; isPending: boolean; error: unknown; data: A | undefined };
  /** The part of the answer the page shows. */
  select: (answer: A) => D;
  label: string;
  variant?: ButtonProps['variant'];
  disabled?: boolean;
  /** Beside the button, e.g. why it is disabled. */
  hint?: ReactNode;
  gap?: 'xs';
  errorTitle: string;
  /** The result in one sentence beside the button, green or red. */
  summary?: (result: D) => { ok: boolean; text: ReactNode };
  children: (result: D) => ReactNode;
}) {
  const result = run.data === undefined ? undefined : select(run.data);
  const said = result !== undefined && summary ? summary(result) : undefined;
  return (
    <Stack {...(gap ? { gap } : {})}>
      <Group>
        <Button
          {...(variant ? { variant } : {})}
          onClick={() => run.mutate()}
          loading={run.isPending}
          disabled={disabled}
        >
          {label}
        </Button>
        {hint}
        {said && (
          <Text role="status" c={said.ok ? 'green' : 'red'} fw={600}>
            {said.text}
          </Text>
        )}
      </Group>
      {run.error ? <ErrorState error={run.error} title={errorTitle} /> : null}
      {result !== undefined && children(result)}
    </Stack>
  );
}
