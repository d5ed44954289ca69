import { Alert, Anchor, Container, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';

/** A page the console names but has not built yet: said plainly, with the way back. */
export default function LaterPage() {
  const { pathname } = useLocation();
  return (
    <Container size="md" py="md">
      <Title order={1} size="h2" mb="md">
        {pathname}
      </Title>
      <Alert color="blue" title="Not in the console yet">
        This page is not built yet; its JSON routes work today (see the API reference at{' '}
        <Anchor href="/api/docs" inherit>
          /api/docs
        </Anchor>
        ).{' '}
        <Anchor component={Link} to="/">
          Back to the dashboard
        </Anchor>
        .
      </Alert>
    </Container>
  );
}
