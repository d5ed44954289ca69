/**
 * The signed-out pages' forms (sign in, setup, password reset): the card, the form with the
 * server's refusal above its fields when it names none of them (docs/rules/web.md#field-messages),
 * and the fields these forms share — the authenticator code and a new password typed twice.
 */
import { PasswordInput, Stack, TextInput, type TextInputProps } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { fieldError, onlyFieldErrors } from '../api/client';
import { AuthCard } from './AuthCard';
import { ErrorState } from './states';

export function AuthForm({
  title,
  intro,
  onSubmit,
  error,
  fields,
  errorTitle,
  children,
}: {
  title: string;
  intro?: string;
  onSubmit: (e: FormEvent) => void;
  error: unknown;
  /** The form's fields: a refusal naming only these shows under them. */
  fields: readonly string[];
  errorTitle: string;
  children: ReactNode;
}) {
  return (
    <AuthCard title={title} {...(intro !== undefined ? { intro } : {})}>
      <form onSubmit={onSubmit} noValidate>
        <Stack>
          {error && !onlyFieldErrors(error, fields) ? <ErrorState error={error} title={errorTitle} /> : null}
          {children}
        </Stack>
      </form>
    </AuthCard>
  );
}

/** The six digits of an authenticator app. */
export function CodeInput(props: Omit<TextInputProps, 'inputMode' | 'autoComplete' | 'maxLength'>) {
  return (
    <TextInput
      label="Authenticator code"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      {...props}
    />
  );
}

/** A new password and the same again: each labelled, each with the server's message for its field. */
export function NewPasswordPair({
  labels,
  values,
  onChange,
  error,
  fields,
}: {
  labels: [string, string];
  values: [string, string];
  onChange: [(v: string) => void, (v: string) => void];
  error: unknown;
  /** The fields the server names for each (`password`, `confirm_password`). */
  fields: [string, string];
}) {
  return (
    <>
      <PasswordInput
        label={labels[0]}
        required
        withAsterisk={false}
        autoComplete="new-password"
        description="At least 8 characters"
        value={values[0]}
        onChange={(e) => onChange[0](e.currentTarget.value)}
        error={fieldError(error, fields[0])}
      />
      <PasswordInput
        label={labels[1]}
        required
        withAsterisk={false}
        autoComplete="new-password"
        value={values[1]}
        onChange={(e) => onChange[1](e.currentTarget.value)}
        error={fieldError(error, fields[1])}
      />
    </>
  );
}
