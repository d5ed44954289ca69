/**
 * The frames the console's pages repeat: a page's title over its stacked cards, and a card with
 * its heading (docs/rules/web.md#field-messages: every part of a page is named).
 */
import { Card, Container, Stack, Title, type ContainerProps } from '@mantine/core';
import type { ReactNode } from 'react';

/** A page: its title (the one `h1`) and its parts, one under the other. */
export function PageFrame({
  title,
  size = 'lg',
  children,
}: {
  title: string;
  size?: ContainerProps['size'];
  children: ReactNode;
}) {
  return (
    <Container size={size}>
      <Title order={1} size="h2" mb="md">
        {title}
      </Title>
      <Stack gap="lg">{children}</Stack>
    </Container>
  );
}

/** A part of a page: a bordered card under its `h2`. */
export function SectionCard({
  title,
  region = false,
  children,
}: {
  title: ReactNode;
  /** Also a landmark named by its title (the monitoring pages' sections). */
  region?: boolean;
  children: ReactNode;
}) {
  return (
    <Card
      withBorder
      {...(region && typeof title === 'string' ? { component: 'section' as const, 'aria-label': title } : {})}
    >
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}
