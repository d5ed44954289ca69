/**
 * A page of figures over a chosen window (the monitoring pages: docs/rules/web.md#traffic-page,
 * docs/rules/web.md#latency-page): its title and what it shows, the window's control, then the
 * window's figures — a labelled spinner on the first load, the server's message when there is
 * nothing to show, and the last figures kept on screen while another window loads.
 */
import { Container, Group, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState, Loading } from './states';

export function WindowedPage<T>({
  title,
  intro,
  controls,
  query,
  label,
  errorTitle,
  children,
  footer,
}: {
  title: string;
  intro: string;
  /** The window's control, beside the title. */
  controls: ReactNode;
  query: Pick<UseQueryResult<T>, 'isPending' | 'isError' | 'error' | 'data'>;
  /** What is loading ("Loading traffic…"). */
  label: string;
  errorTitle: string;
  children: (data: T) => ReactNode;
  /** Below the figures, fetched alongside them. */
  footer?: ReactNode;
}) {
  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" align="flex-end" mb="md" wrap="wrap">
        <div>
          <Title order={1} size="h2">
            {title}
          </Title>
          <Text size="sm" c="dimmed">
            {intro}
          </Text>
        </div>
        {controls}
      </Group>
      {query.isPending && <Loading label={label} />}
      {query.isError && query.data === undefined && <ErrorState error={query.error} title={errorTitle} />}
      {query.data !== undefined && children(query.data)}
      {footer}
    </Container>
  );
}
