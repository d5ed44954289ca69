/**
 * The order book's modify form (docs/rules/web.md#desk-calls): a working order's price type,
 * quantity, prices and disclosed quantity, prefilled; the server's messages under the fields
 * (docs/rules/web.md#field-messages).
 */
import { Button, Group, NativeSelect, NumberInput, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import {
  hasLimitPrice,
  hasTriggerPrice,
  PRICE_TYPES,
  type PriceType,
} from '../../../../../src/domain/orders';
import { fieldError, onlyFieldErrors } from '../../../api/client';
import type { DeskBody } from '../../../api/desk';
import type { Outcome } from '../../../components/BookActions';
import { ErrorState } from '../../../components/states';
import { useModifyOrderMutation } from '../../../features/desk/api/orders';
import { sideStyle, type Order } from './columns';

const MODIFY_FIELDS = ['pricetype', 'quantity', 'price', 'trigger_price', 'disclosed_quantity'];

const num = (v: number | string) => (typeof v === 'number' ? v : Number(v));

/** The modify form of one working order: its fields, prefilled; the server checks them. */
export function ModifyForm({
  order,
  onDone,
  onClose,
}: {
  order: Order;
  onDone: (o: Outcome) => void;
  onClose: () => void;
}) {
  const [pricetype, setPricetype] = useState<PriceType>(order.pricetype);
  const [quantity, setQuantity] = useState<number | string>(order.quantity);
  const [price, setPrice] = useState<number | string>(order.price);
  const [trigger, setTrigger] = useState<number | string>(order.trigger_price);
  const [disclosed, setDisclosed] = useState<number | string>(0);
  const modify = useModifyOrderMutation({
    onRefreshed: (a) => onDone({ ok: true, message: a.message ?? `Order ${a.orderid} modified.` }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    modify.mutate({
      orderid: order.orderid,
      symbol: order.symbol,
      exchange: order.exchange,
      action: order.action,
      product: order.product,
      pricetype,
      quantity: num(quantity),
      price: hasLimitPrice(pricetype) ? num(price) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(trigger) : 0,
      disclosed_quantity: num(disclosed || 0),
      ...(order.strategy ? { strategy: order.strategy } : {}),
    } as DeskBody<'modifyorder'>);
  };
  const err = modify.error;
  return (
    <form onSubmit={submit} noValidate aria-label={`Modify order ${order.orderid}`}>
      <Stack>
        <Text>
          <span style={sideStyle(order.action)}>{order.action}</span> <strong>{order.symbol}</strong> on{' '}
          {order.exchange}, {order.product}. Symbol, exchange, side and product stay as they are.
        </Text>
        {err && !onlyFieldErrors(err, MODIFY_FIELDS) && <ErrorState error={err} title="Not modified" />}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NativeSelect
            label="Price type"
            data={[...PRICE_TYPES]}
            value={pricetype}
            onChange={(e) => setPricetype(e.currentTarget.value as PriceType)}
            error={fieldError(err, 'pricetype')}
          />
          <NumberInput
            label="Quantity"
            required
            withAsterisk={false}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            value={quantity}
            onChange={setQuantity}
            error={fieldError(err, 'quantity')}
          />
          <NumberInput
            label="Price"
            required
            withAsterisk={false}
            disabled={!hasLimitPrice(pricetype)}
            description={hasLimitPrice(pricetype) ? undefined : `${pricetype} orders carry no limit price`}
            allowNegative={false}
            decimalScale={4}
            clampBehavior="none"
            value={price}
            onChange={setPrice}
            error={fieldError(err, 'price')}
          />
          <NumberInput
            label="Trigger price"
            required
            withAsterisk={false}
            disabled={!hasTriggerPrice(pricetype)}
            description={hasTriggerPrice(pricetype) ? undefined : `${pricetype} orders carry no trigger`}
            allowNegative={false}
            decimalScale={4}
            clampBehavior="none"
            value={trigger}
            onChange={setTrigger}
            error={fieldError(err, 'trigger_price')}
          />
          <NumberInput
            label="Disclosed quantity (optional)"
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            value={disclosed}
            onChange={setDisclosed}
            error={fieldError(err, 'disclosed_quantity')}
          />
        </SimpleGrid>
        <Group>
          <Button type="submit" loading={modify.isPending}>
            Modify order
          </Button>
          <Button variant="default" onClick={onClose}>
            Back
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
