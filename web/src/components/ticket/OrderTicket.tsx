/**
 * The order ticket (docs/rules/web.md#order-ticket): a symbol with suggestions from the session
 * search, exchange, BUY or SELL, quantity checked against the lot size before sending, price type
 * and the prices it needs, product as the exchange allows; placed through the desk
 * (docs/rules/web.md#desk-calls), so the sandbox takes it in analyzer mode and the broker in live
 * mode — after a confirmation that names the broker. The chosen contract's LTP, best bid and ask
 * and day's change follow the live feed (TicketQuote.tsx). The server's messages show under the fields
 * they name (docs/rules/web.md#field-messages); the order id and the answer's message afterwards.
 * On a phone it takes the whole screen, and its send button stays in view while the form scrolls
 * (docs/rules/web.md#phone-width).
 */
import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  NumberInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import '@mantine/core/styles/FloatingIndicator.css';
import '@mantine/core/styles/SegmentedControl.css';
import { ORDER_EXCHANGES, type OrderExchange } from '../../../../src/domain/exchanges';
import {
  ACTIONS,
  hasLimitPrice,
  hasTriggerPrice,
  PRICE_TYPES,
  type Action,
  type PriceType,
  type Product,
} from '../../../../src/domain/orders';
import { Suggestions } from './Suggestions';
import type { TicketPrefill } from './ticket-context';
import { TicketConfirm } from './TicketConfirm';
import { allUnderFields, productsFor } from './ticket-fields';
import classes from './OrderTicket.module.css';
import { TicketPlaced } from './TicketPlaced';
import { TicketMargin } from './TicketMargin';
import { TicketQuote } from './TicketQuote';
import { useTicketForm } from './use-ticket-form';

/** The lot and tick lines under the field, so side-by-side fields line up. */
const UNDER: Array<'label' | 'input' | 'description' | 'error'> = ['label', 'input', 'description', 'error'];

/** Below the component kit's `sm` breakpoint: a phone. */
const PHONE = '(max-width: 47.99em)';

export default function OrderTicket({
  opened,
  prefill,
  onClose,
}: {
  opened: boolean;
  prefill: TicketPrefill;
  onClose: () => void;
}) {
  const ticket = useTicketForm(opened, prefill);
  const phone = useMediaQuery(PHONE, false, { getInitialValueInEffect: false });

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title="Order ticket"
      size="lg"
      fullScreen={phone}
      closeButtonProps={{ 'aria-label': 'Dismiss the order ticket' }}
    >
      {ticket.placed ? (
        <TicketPlaced ticket={ticket} placed={ticket.placed} onClose={onClose} />
      ) : ticket.confirming ? (
        <TicketConfirm ticket={ticket} />
      ) : (
        <form onSubmit={ticket.submit} noValidate aria-label="Order ticket" id={ticket.formId}>
          <Stack gap="sm">
            {ticket.mode.data && (
              <Text size="sm" c={ticket.live ? 'red' : 'yellow.8'}>
                {ticket.live
                  ? 'Live mode: the order goes to your broker after a confirmation.'
                  : 'Analyzer mode: the order goes to the sandbox, not to the broker.'}
              </Text>
            )}
            {ticket.err && !allUnderFields(ticket.err) && (
              <Alert color="red" title="Order not placed" role="alert">
                {ticket.err.message}
              </Alert>
            )}
            {ticket.err && allUnderFields(ticket.err) && (
              <Text size="sm" c="red" role="alert">
                Order not placed: see the messages under the fields.
              </Text>
            )}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Stack gap={4}>
                <TextInput
                  label="Symbol"
                  required
                  withAsterisk={false}
                  placeholder="NIFTY 26000 CE"
                  autoComplete="off"
                  value={ticket.symbol}
                  onChange={(e) => {
                    ticket.setSymbol(e.currentTarget.value);
                    ticket.setSuggest(true);
                  }}
                  error={ticket.error('symbol')}
                  data-autofocus
                />
              </Stack>
              <NativeSelect
                label="Exchange"
                data={[...ORDER_EXCHANGES]}
                value={ticket.exchange}
                onChange={(e) => ticket.changeExchange(e.currentTarget.value as OrderExchange)}
                error={ticket.error('exchange')}
              />
            </SimpleGrid>
            {ticket.suggest && (
              <Suggestions text={ticket.symbol} exchange={ticket.exchange} onPick={ticket.pick} />
            )}
            <Text size="sm" c="dimmed" data-testid="ticket-facts" aria-live="polite">
              {ticket.lookup.state === 'looking' && 'Looking the symbol up…'}
              {ticket.lookup.state === 'terms' && 'Choose the contract among the suggestions.'}
              {ticket.lookup.state === 'unknown' &&
                `${ticket.symbol.trim().toUpperCase()} is not in the ${ticket.exchange} master contract.`}
              {ticket.lookup.state === 'error' && 'The symbol could not be looked up.'}
              {ticket.facts &&
                [
                  ticket.facts.symbol,
                  ticket.facts.exchange,
                  ticket.lotLine,
                  ticket.tickLine,
                  ticket.facts.expiry ? `expiry ${ticket.facts.expiry}` : '',
                ]
                  .filter(Boolean)
                  .join(' · ')}
            </Text>
            {ticket.facts && (
              <TicketQuote
                symbol={ticket.facts.symbol}
                exchange={ticket.facts.exchange}
                quote={ticket.quote}
                stale={ticket.pricesStale}
              />
            )}
            <Stack gap={4}>
              <Text size="sm" fw={500} id={`${ticket.formId}-action`}>
                Action
              </Text>
              <SegmentedControl
                aria-labelledby={`${ticket.formId}-action`}
                data={[...ACTIONS]}
                value={ticket.action}
                onChange={(v) => ticket.setAction(v as Action)}
                color={ticket.action === 'BUY' ? 'green' : 'red'}
                fullWidth
              />
              {ticket.error('action') && (
                <Text size="xs" c="red">
                  {ticket.error('action')}
                </Text>
              )}
            </Stack>
            <SimpleGrid cols={2}>
              <NumberInput
                label="Quantity"
                required
                withAsterisk={false}
                allowDecimal={false}
                allowNegative={false}
                clampBehavior="none"
                value={ticket.quantity}
                onChange={(v) => {
                  ticket.setQuantity(v);
                  ticket.setChecked((c) => ({ ...c, quantity: undefined }));
                }}
                step={ticket.facts && ticket.facts.lotsize > 1 ? ticket.facts.lotsize : 1}
                description={[ticket.lotLine, ticket.freeze].filter(Boolean).join(' · ') || undefined}
                inputWrapperOrder={UNDER}
                error={ticket.error('quantity')}
              />
              <NativeSelect
                label="Product"
                data={productsFor(ticket.exchange)}
                value={ticket.product}
                onChange={(e) => ticket.setProduct(e.currentTarget.value as Product)}
                error={ticket.error('product')}
              />
            </SimpleGrid>
            <SimpleGrid cols={{ base: 2, sm: 3 }}>
              <NativeSelect
                label="Price type"
                data={[...PRICE_TYPES]}
                value={ticket.pricetype}
                onChange={(e) => ticket.setPricetype(e.currentTarget.value as PriceType)}
                error={ticket.error('pricetype')}
              />
              {hasLimitPrice(ticket.pricetype) && (
                <NumberInput
                  label="Price"
                  required
                  withAsterisk={false}
                  allowNegative={false}
                  decimalScale={4}
                  clampBehavior="none"
                  value={ticket.price}
                  onChange={ticket.setPrice}
                  description={ticket.tickLine}
                  inputWrapperOrder={UNDER}
                  error={ticket.error('price')}
                />
              )}
              {hasTriggerPrice(ticket.pricetype) && (
                <NumberInput
                  label="Trigger price"
                  required
                  withAsterisk={false}
                  allowNegative={false}
                  decimalScale={4}
                  clampBehavior="none"
                  value={ticket.trigger}
                  onChange={ticket.setTrigger}
                  description={ticket.tickLine}
                  inputWrapperOrder={UNDER}
                  error={ticket.error('trigger_price')}
                />
              )}
            </SimpleGrid>
            {ticket.priceWarning && (
              <Text size="sm" c="orange.8" role="status" data-testid="ticket-price-warning">
                {ticket.priceWarning}
              </Text>
            )}
            <TicketMargin margin={ticket.margin} />
            <TextInput
              label="Strategy tag"
              description="Shown in the order book and logs."
              value={ticket.strategy}
              onChange={(e) => ticket.setStrategy(e.currentTarget.value)}
              error={ticket.error('strategy')}
            />
            <Group justify="space-between" className={classes.footer}>
              <Badge color={ticket.action === 'BUY' ? 'green' : 'red'} variant="light">
                {ticket.action} {ticket.product}
              </Badge>
              <Group>
                <Button variant="default" onClick={onClose}>
                  Cancel
                </Button>
                <Button
                  type="submit"
                  color={ticket.action === 'BUY' ? 'green' : 'red'}
                  loading={ticket.place.isPending}
                >
                  {ticket.live ? 'Review the order' : `Place ${ticket.action} order`}
                </Button>
              </Group>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
