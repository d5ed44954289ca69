/** A row of labelled figures (a number and what it is), as a description list for screen readers. */
import { Paper, SimpleGrid, Text } from '@mantine/core';

export interface Figure {
  label: string;
  value: string;
  /** A colour for a figure that needs attention (errors). */
  color?: string;
  hint?: string;
}

export function Figures({ items, label }: { items: Figure[]; label: string }) {
  return (
    <SimpleGrid
      cols={{ base: 2, sm: 4, lg: items.length > 4 ? 4 : items.length }}
      component="dl"
      aria-label={label}
      m={0}
    >
      {items.map((f) => (
        <Paper key={f.label} withBorder p="sm" radius="sm">
          <Text component="dt" size="xs" c="dimmed" tt="uppercase" fw={600}>
            {f.label}
          </Text>
          <Text component="dd" m={0} fz="xl" fw={700} c={f.color} data-testid={`figure-${f.label}`}>
            {f.value}
          </Text>
          {f.hint && (
            <Text size="xs" c="dimmed">
              {f.hint}
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}
