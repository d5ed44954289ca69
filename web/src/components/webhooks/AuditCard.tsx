/**
 * A card around a list the server answers (a source's deliveries, runs or events): its heading —
 * with Refresh and Close when the page opened it on demand, or the list's filters — then the
 * list, or, in words, that it is loading, failed or empty (docs/rules/web.md#field-messages).
 */
import { Button, Card, Group, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Empty, ErrorState, Loading } from '../states';

export function AuditCard<D>({
  title,
  query,
  loading,
  empty,
  onClose,
  filters,
  children,
}: {
  title: string;
  query: UseQueryResult<{ data: D[] }>;
  /** The loading state's words ("Loading deliveries…"). */
  loading: string;
  /** What an empty answer says. */
  empty: ReactNode;
  /** Given: the card was opened on demand, and has Refresh and Close buttons. */
  onClose?: () => void;
  /** Beside the heading, aligned with its foot: the list's filters. */
  filters?: ReactNode;
  /** The list, drawn only when it has rows. */
  children: (rows: D[]) => ReactNode;
}) {
  const rows = query.data?.data ?? [];
  const buttons = onClose && (
    <Group gap="xs">
      <Button size="xs" variant="default" onClick={() => void query.refetch()}>
        Refresh
      </Button>
      <Button size="xs" variant="default" onClick={onClose}>
        Close
      </Button>
    </Group>
  );
  const aside = buttons ?? filters;
  const heading = (
    <Title order={2} size="h4" mb={aside ? undefined : 'sm'}>
      {title}
    </Title>
  );
  return (
    <Card withBorder>
      {aside ? (
        <Group justify="space-between" align={buttons ? undefined : 'flex-end'} mb="sm">
          {heading}
          {aside}
        </Group>
      ) : (
        heading
      )}
      {query.isPending && <Loading label={loading} />}
      {query.isError && <ErrorState error={query.error} />}
      {query.data && rows.length === 0 && <Empty>{empty}</Empty>}
      {rows.length > 0 && children(rows)}
    </Card>
  );
}
