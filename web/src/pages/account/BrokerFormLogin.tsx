/**
 * The `/broker` page's form login (docs/rules/web.md#account-pages), for a broker that logs in
 * without a redirect: the fields the server lists (`login_fields`: Angel One's client code, PIN and
 * TOTP; Dhan's pasted access token), each checked against its pattern before sending, secrets in
 * password inputs that are emptied after every attempt. The answer's refusal is shown as the
 * broker worded it.
 */
import { Button, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ErrorState } from '../../components/states';
import { useFormLoginMutation, type BrokerStatus } from '../../features/account/api/broker';

type Field = BrokerStatus['login_fields'][number];

/** Whether `value` is in the field's form (the server checks again). */
const fits = (f: Field, value: string) => new RegExp(`^(?:${f.pattern})$`).test(value.trim());

export function BrokerFormLogin({ fields, again }: { fields: Field[]; again: boolean }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [tried, setTried] = useState(false);
  const login = useFormLoginMutation();
  const problem = (f: Field): string | null => {
    const v = values[f.name] ?? '';
    if (!tried) return null;
    if (v.trim() === '') return `${f.label} is required`;
    return fits(f, v) ? null : `${f.label} is not in the expected form`;
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (fields.some((f) => !fits(f, values[f.name] ?? ''))) return;
    login.mutate(Object.fromEntries(fields.map((f) => [f.name, (values[f.name] ?? '').trim()])));
    // The secrets go once: the next attempt types them again (a TOTP code is single-use anyway).
    setTried(false);
    setValues((v) =>
      Object.fromEntries(fields.filter((f) => !f.secret).map((f) => [f.name, v[f.name] ?? ''])),
    );
  };
  return (
    <form onSubmit={submit} aria-label="Broker login" noValidate>
      <Stack maw={420} gap="sm">
        {fields.map((f) => {
          const common = {
            key: f.name,
            label: f.label,
            description: f.hint ?? undefined,
            value: values[f.name] ?? '',
            error: problem(f),
            required: true,
            autoComplete: 'off',
            onChange: (e: { currentTarget: { value: string } }) => {
              const value = e.currentTarget.value;
              setValues((v) => ({ ...v, [f.name]: value }));
            },
          };
          return f.secret ? <PasswordInput {...common} /> : <TextInput {...common} />;
        })}
        {login.isError && <ErrorState error={login.error} title="Broker login failed" />}
        <Group>
          <Button type="submit" loading={login.isPending}>
            {again ? 'Log in again' : 'Log in'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
