import { Alert, Anchor, Container } from '@mantine/core';
import { Link } from 'react-router';

export default function NotFoundPage() {
  return (
    <Container size="sm" py="xl">
      <Alert color="gray" title="No such page">
        This page does not exist.{' '}
        <Anchor component={Link} to="/">
          Go to the dashboard
        </Anchor>
        .
      </Alert>
    </Container>
  );
}
