/**
 * The sandbox's statements as CSV downloads (docs/rules/web.md#account-pages,
 * docs/rules/sandbox.md#contract-note): an IST day's contract note (today by default) and every
 * fill since the last reset with its charges. Plain links: the session cookie authenticates them,
 * and the server names the files (`contract-note-<day>.csv`, `fills-<day>.csv`).
 */
import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { contractNoteCsvUrl, FILLS_CSV_URL, istToday } from '../../../features/account/api/sandbox';

const isDay = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

export function Downloads() {
  const [today] = useState(istToday);
  const [day, setDay] = useState(today);
  const valid = isDay(day);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Contract notes and fills
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        A day’s contract note lists its trades by exchange with every charge (brokerage, STT, exchange
        charges, SEBI fee, stamp duty, GST) and the net obligation.
      </Text>
      <Stack gap="sm">
        <Group align="flex-end" gap="sm">
          <TextInput
            type="date"
            label="Day (IST)"
            value={day}
            max={today}
            onChange={(e) => setDay(e.currentTarget.value)}
            error={valid ? undefined : 'Choose a day'}
            w={180}
          />
          <Button
            component="a"
            variant="light"
            href={valid ? contractNoteCsvUrl(day) : undefined}
            download={valid ? true : undefined}
            data-disabled={valid ? undefined : true}
            aria-disabled={!valid}
            onClick={(e) => {
              if (!valid) e.preventDefault();
            }}
          >
            Contract note (CSV)
          </Button>
        </Group>
        <Group>
          <Button component="a" variant="light" href={FILLS_CSV_URL} download>
            All fills (CSV)
          </Button>
          <Text size="sm" c="dimmed">
            Every fill since the last reset, with its charges.
          </Text>
        </Group>
      </Stack>
    </Card>
  );
}
