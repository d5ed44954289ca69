/**
 * The margin the order as typed needs (docs/rules/web.md#order-ticket), from the desk's `margin`
 * call once the typing pauses (use-ticket-margin.ts): the total, with SPAN and exposure when the
 * calculator splits it; "…" while it is asked; the server's refusal in its own words (a margin
 * the calculator cannot give never stops the order: the pipeline decides). The line holds its
 * place before the order can be priced ("—"), so the buttons below never move under the pointer
 * when the price arrives.
 */
import { Group, Loader, Text } from '@mantine/core';
import { ApiError } from '../../api/client';
import { formatRupees } from '../../format-number';
import type { useTicketMargin } from './use-ticket-margin';

export function TicketMargin({ margin }: { margin: ReturnType<typeof useTicketMargin> }) {
  const d = margin.priced ? margin.data?.data : undefined;
  return (
    <Group gap="xs" data-testid="ticket-margin" aria-live="polite">
      <Text size="sm" fw={500}>
        Margin required
      </Text>
      {!margin.priced ? (
        <Text size="sm" c="dimmed" data-testid="ticket-margin-unpriced">
          —
        </Text>
      ) : margin.waiting ? (
        <Loader size="xs" aria-label="Asking the margin" />
      ) : margin.isError ? (
        <Text size="sm" c="dimmed">
          Not available:{' '}
          {margin.error instanceof ApiError ? margin.error.message : 'the margin could not be asked.'}
        </Text>
      ) : d ? (
        <>
          <Text
            size="sm"
            fw={700}
            data-testid="ticket-margin-total"
            style={{ fontVariantNumeric: 'tabular-nums' }}
          >
            {formatRupees(d.total_margin_required)}
          </Text>
          {(d.span_margin > 0 || d.exposure_margin > 0) && (
            <Text size="xs" c="dimmed">
              SPAN {formatRupees(d.span_margin)} · exposure {formatRupees(d.exposure_margin)}
            </Text>
          )}
        </>
      ) : null}
    </Group>
  );
}
