/**
 * `/strategy/new`: the wizard that creates a strategy (docs/rules/strategies.md#strategy-management)
 * — its kind (batch or signal), name, product and direction; its legs (LegBuilder.tsx); an
 * optional sender allowlist; then a review. The server checks everything (the legs against the
 * master contract too): a refusal opens the step of the first field it names and shows its
 * message under that field (docs/rules/web.md#field-messages). Once created, the strategy's page
 * opens with the webhook URL and token shown once, handed over in memory only
 * (docs/rules/web.md#strategy-pages).
 */
import {
  Alert,
  Button,
  Card,
  Container,
  Group,
  List,
  NativeSelect,
  Radio,
  SimpleGrid,
  Stack,
  Stepper,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/List.css';
import '@mantine/core/styles/Radio.css';
import '@mantine/core/styles/RadioCard.css';
import '@mantine/core/styles/RadioIndicator.css';
import '@mantine/core/styles/Stepper.css';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { PRODUCTS } from '../../../../src/domain/orders';
import {
  DIRECTIONS,
  type Direction,
  type StrategyKind,
} from '../../../../src/modules/strategies/strategy.types';
import { PAGE_PATHS, strategyPagePath } from '../../../../src/modules/web/web-pages';
import { ApiError } from '../../api/client';
import { ErrorState } from '../../components/states';
import { useCreateStrategy } from '../../features/strategies/api/strategies';
import type { Leg } from '../../features/strategies/api/types';
import { fieldMessage } from './field-messages';
import { legBody, LegFields, newLeg, type LegDraft } from './LegBuilder';
import { DIRECTION_LABEL, handOffIssued, legText } from './model';

const PRODUCT_LABEL: Record<string, string> = {
  MIS: 'MIS (intraday)',
  CNC: 'CNC (delivery)',
  NRML: 'NRML (carry forward)',
};
const STEPS = ['Kind', 'Legs', 'Review'] as const;
/** A kind's card: its text from the top, whatever the other card's height. */
const CARD = { display: 'flex', alignItems: 'flex-start' } as const;
const MAX_LEGS = 20;

/**
 * The server's field name, one spelling: a schema failure says `legs.0.symbol`, the leg check
 * `legs[0].symbol`; an allowlist entry's (`ip_allowlist.2`) shows under the allowlist.
 */
const normalise = (field: string) =>
  field.replace(/^legs\.(\d+)(?=\.|$)/, 'legs[$1]').replace(/^ip_allowlist\.\d+$/, 'ip_allowlist');

/** A draft leg as the strategy page words a saved one. */
function draftLeg(l: LegDraft, kind: StrategyKind): Leg {
  const derivative = kind === 'batch' && l.leg_type === 'derivative';
  const n = (v: number | string) => (v === '' ? 0 : Number(v));
  return {
    id: 0,
    leg_type: derivative ? 'derivative' : 'instrument',
    symbol: derivative ? null : l.symbol.trim().toUpperCase() || '(no symbol)',
    exchange: l.exchange,
    underlying: derivative ? l.underlying.trim().toUpperCase() || '(no underlying)' : null,
    expiry_rank: derivative ? l.expiry_rank : null,
    option_type: derivative ? l.option_type : null,
    strike_offset: derivative && l.option_type !== 'FUT' ? n(l.strike_offset) : null,
    quantity: n(l.quantity),
    quantity_unit: derivative ? 'lots' : l.quantity_unit,
    side: kind === 'batch' ? (l.side as Leg['side']) : null,
  };
}

/** The step that holds a field. */
const stepOf = (field: string) => (field.startsWith('legs') ? 1 : field === 'ip_allowlist' ? 2 : 0);

/** The server's messages by field, one spelling of each field, worded for a person (field-messages.ts). */
function serverFields(err: unknown): Record<string, string> {
  if (!(err instanceof ApiError)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(err.fields)) {
    const key = normalise(k);
    const said = v.map((m) => fieldMessage(key, m));
    out[key] = [out[key], ...said].filter((m, i, all) => m && all.indexOf(m) === i).join(' ');
  }
  if (err.code === 'strategy_name_taken' && !out.name) out.name = err.message;
  return out;
}

export default function NewStrategyPage() {
  const navigate = useNavigate();
  const [active, setActive] = useState(0);
  const [kind, setKind] = useState<StrategyKind>('signal');
  const [name, setName] = useState('');
  const [product, setProduct] = useState('MIS');
  const [direction, setDirection] = useState<Direction>('both');
  const [legs, setLegs] = useState<LegDraft[]>([newLeg(0, 'signal')]);
  const [nextKey, setNextKey] = useState(1);
  const [allowlist, setAllowlist] = useState('');

  // The token goes to the strategy's page in memory only; the mutation keeps just the id.
  const create = useCreateStrategy(handOffIssued);
  const send = () => {
    setEdited(new Set());
    create.mutate(
      {
        name: name.trim(),
        kind,
        product,
        ...(kind === 'signal' ? { direction } : {}),
        legs: legs.map((l) => legBody(l, kind)),
        ip_allowlist: allowlist
          .split(/[\s,]+/)
          .map((s) => s.trim())
          .filter(Boolean),
      },
      {
        onSuccess: (id) => void navigate(strategyPagePath(id)),
        onError: (err) => {
          const fields = Object.keys(serverFields(err));
          if (fields.length > 0) setActive(Math.min(...fields.map(stepOf)));
        },
      },
    );
  };
  // The server's messages of the last refusal, each dropped once its field is edited.
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const touch = (...keys: string[]) => {
    if (create.error) setEdited((e) => new Set([...e, ...keys]));
  };
  const refused = serverFields(create.error);
  const fields = Object.fromEntries(Object.entries(refused).filter(([k]) => !edited.has(k)));
  const known = (f: string) =>
    f === 'name' ||
    f === 'kind' ||
    f === 'product' ||
    f === 'direction' ||
    f === 'ip_allowlist' ||
    f.startsWith('legs');
  // A refusal that names no field of the form (or one it does not have) is said above it.
  const unplaced = create.error && (Object.keys(refused).length === 0 || !Object.keys(refused).every(known));
  const legError = (i: number) => (field: string) => fields[`legs[${i}].${field}`];

  const chooseKind = (k: StrategyKind) => {
    setKind(k);
    setLegs((ls) =>
      ls.map((l) => ({
        ...l,
        side: k === 'batch' ? l.side || 'BUY' : '',
        leg_type: k === 'batch' ? l.leg_type : 'instrument',
      })),
    );
  };
  const setLeg = (key: number, patch: Partial<LegDraft>) =>
    setLegs((ls) => ls.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  const addLeg = () => {
    setLegs((ls) => [...ls, newLeg(nextKey, kind)]);
    setNextKey((k) => k + 1);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (active < STEPS.length - 1) setActive(active + 1);
    else send();
  };

  return (
    <Container size="lg" px={0}>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          New strategy
        </Title>
        <Button component={Link} to={PAGE_PATHS.strategies} variant="default">
          Back to strategies
        </Button>
      </Group>
      <Card withBorder>
        <form onSubmit={submit} noValidate aria-label="New strategy">
          <Stack>
            {unplaced && <ErrorState error={create.error} title="Not created" />}
            <Stepper active={active} onStepClick={setActive} size="sm">
              <Stepper.Step
                label="Kind"
                description={kind === 'batch' ? 'Batch' : 'Signal'}
                color={['name', 'product', 'direction', 'kind'].some((f) => fields[f]) ? 'red' : undefined}
              >
                <Stack mt="md">
                  <Radio.Group
                    label="Kind"
                    value={kind}
                    onChange={(v) => {
                      touch('kind');
                      chooseKind(v as StrategyKind);
                    }}
                    error={fields.kind}
                  >
                    <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs">
                      <Radio.Card value="signal" p="md" radius="md" aria-label="Signal" style={CARD}>
                        <Group wrap="nowrap" align="flex-start">
                          <Radio.Indicator />
                          <div>
                            <Text fw={600}>Signal</Text>
                            <Text size="sm" c="dimmed">
                              TradingView alerts enter and exit each leg: long_entry, long_exit, short_entry,
                              short_exit. The first signal opens a run.
                            </Text>
                          </div>
                        </Group>
                      </Radio.Card>
                      <Radio.Card value="batch" p="md" radius="md" aria-label="Batch" style={CARD}>
                        <Group wrap="nowrap" align="flex-start">
                          <Radio.Indicator />
                          <div>
                            <Text fw={600}>Batch</Text>
                            <Text size="sm" c="dimmed">
                              A start places every leg at once (BUY legs before SELL legs); a stop exits them
                              all. Legs may be options chosen by expiry and strike at start.
                            </Text>
                          </div>
                        </Group>
                      </Radio.Card>
                    </SimpleGrid>
                  </Radio.Group>
                  <TextInput
                    label="Name"
                    value={name}
                    onChange={(e) => {
                      touch('name');
                      setName(e.currentTarget.value);
                    }}
                    error={fields.name}
                    maxLength={100}
                  />
                  <SimpleGrid cols={{ base: 1, sm: 2 }}>
                    <NativeSelect
                      label="Product"
                      description="Every order of the strategy, entries and exits"
                      data={PRODUCTS.map((p) => ({ value: p, label: PRODUCT_LABEL[p] ?? p }))}
                      value={product}
                      onChange={(e) => {
                        touch('product');
                        setProduct(e.currentTarget.value);
                      }}
                      error={fields.product}
                    />
                    {kind === 'signal' && (
                      <NativeSelect
                        label="Direction"
                        description="Signals for the other side are refused"
                        data={DIRECTIONS.map((d) => ({ value: d, label: DIRECTION_LABEL[d] }))}
                        value={direction}
                        onChange={(e) => {
                          touch('direction');
                          setDirection(e.currentTarget.value as Direction);
                        }}
                        error={fields.direction}
                      />
                    )}
                  </SimpleGrid>
                </Stack>
              </Stepper.Step>
              <Stepper.Step
                label="Legs"
                description={`${legs.length} leg${legs.length === 1 ? '' : 's'}`}
                color={Object.keys(fields).some((f) => f.startsWith('legs')) ? 'red' : undefined}
              >
                <Stack mt="md">
                  <Text size="sm" c="dimmed">
                    {kind === 'signal'
                      ? 'Each leg is one instrument; a signal names its leg by symbol and exchange (a strategy of one leg needs neither). The side comes from the signal.'
                      : 'Each leg is one instrument, or a future or option chosen when a run starts: the expiry by its rank among the listed ones, an option’s strike by its distance from ATM.'}
                  </Text>
                  {fields.legs && (
                    <Alert color="red" role="alert">
                      {fields.legs}
                    </Alert>
                  )}
                  {legs.map((l, i) => (
                    <LegFields
                      key={l.key}
                      leg={l}
                      n={i + 1}
                      kind={kind}
                      error={legError(i)}
                      onChange={(patch) => {
                        // A changed exchange or type may answer another field's message too.
                        touch(
                          ...Object.keys(patch).map((f) => `legs[${i}].${f}`),
                          ...('exchange' in patch || 'leg_type' in patch
                            ? [`legs[${i}].symbol`, `legs[${i}].underlying`]
                            : []),
                        );
                        setLeg(l.key, patch);
                      }}
                      onRemove={
                        legs.length > 1
                          ? () => {
                              // The legs after it move up: their messages no longer name them.
                              touch(...Object.keys(refused).filter((f) => f.startsWith('legs')));
                              setLegs((ls) => ls.filter((x) => x.key !== l.key));
                            }
                          : undefined
                      }
                    />
                  ))}
                  <Group>
                    <Button variant="light" onClick={addLeg} disabled={legs.length >= MAX_LEGS}>
                      Add a leg
                    </Button>
                  </Group>
                </Stack>
              </Stepper.Step>
              <Stepper.Step
                label="Review"
                description="Create"
                color={fields.ip_allowlist ? 'red' : undefined}
              >
                <Stack mt="md">
                  <List spacing={4} size="sm" aria-label="Summary">
                    <List.Item>
                      <b>{name.trim() || '(no name yet)'}</b>: {kind} strategy, product {product}
                      {kind === 'signal' ? `, ${DIRECTION_LABEL[direction].toLowerCase()}` : ''}
                    </List.Item>
                    {legs.map((l, i) => (
                      <List.Item key={l.key}>
                        Leg {i + 1}: {legText(draftLeg(l, kind))}
                      </List.Item>
                    ))}
                  </List>
                  <Textarea
                    label="Allowed senders (optional)"
                    description="Addresses or ranges (CIDR) the webhook takes deliveries from, one a line; empty takes any sender"
                    placeholder={'52.89.214.238\n34.212.75.30'}
                    autosize
                    minRows={2}
                    value={allowlist}
                    onChange={(e) => {
                      touch('ip_allowlist');
                      setAllowlist(e.currentTarget.value);
                    }}
                    error={fields.ip_allowlist}
                  />
                  <Text size="sm" c="dimmed">
                    Creating gives the strategy a webhook URL, shown once on its page.
                  </Text>
                </Stack>
              </Stepper.Step>
            </Stepper>
            <Group justify="space-between">
              <Button variant="default" onClick={() => setActive(active - 1)} disabled={active === 0}>
                Back
              </Button>
              {active < STEPS.length - 1 ? (
                <Button type="submit">Next</Button>
              ) : (
                <Button type="submit" loading={create.isPending}>
                  Create strategy
                </Button>
              )}
            </Group>
          </Stack>
        </form>
      </Card>
    </Container>
  );
}
