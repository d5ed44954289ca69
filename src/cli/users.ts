/**
 * `algodesk user …` and `algodesk apikey create`: accounts on the server's own command line
 * (docs/rules/auth.md#account-management), the recovery path when nobody can sign in (a lost
 * phone, a forgotten administrator password: there are no backup codes).
 */
import type { Command } from 'commander';
import type { Services } from '../app.js';
import { toPublicUser, type PublicUser } from '../modules/auth/users.service.js';
import { say, type CliIO } from './io.js';
import { newPassword, withServices } from './services.js';

/** The user named `username`, or a one-line error. */
async function userNamed(s: Services, username: string): Promise<PublicUser> {
  const row = await s.auth.users.findByUsername(username);
  if (row === undefined) throw new Error(`no user named "${username}"`);
  return toPublicUser(row);
}

const PASSWORD_OPTIONS = {
  password: [
    '--password <password>',
    'password, at least 8 characters (lands in shell history: prefer the prompt)',
  ],
  stdin: [
    '--password-stdin',
    'read the password from standard input (a pipe); on a terminal it is asked twice, hidden',
  ],
} as const;

export function userCommands(program: Command, io: CliIO): void {
  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user (the first user becomes an administrator; --admin for later ones)')
    .requiredOption('--username <name>', 'login name (case-insensitive)')
    .option(...PASSWORD_OPTIONS.password)
    .option(...PASSWORD_OPTIONS.stdin)
    .option('--email <email>', 'e-mail address')
    .option('--admin', 'make the user an administrator')
    .action(
      async (opts: {
        username: string;
        password?: string;
        passwordStdin?: boolean;
        email?: string;
        admin?: boolean;
      }) => {
        const password = opts.password ?? (await newPassword(io, 'created'));
        await withServices(
          io,
          async (s) => {
            const created = await s.auth.accounts.create({
              username: opts.username,
              password,
              email: opts.email ?? null,
              admin: opts.admin === true,
            });
            say(io, `created user ${created.username}${created.is_admin ? ' (administrator)' : ''}`);
          },
          { create: true },
        );
      },
    );

  user
    .command('list')
    .description('list users: id, name, e-mail, role, two-factor, state, created')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withServices(io, async (s) => {
        const users = await s.auth.users.list();
        if (opts.json) return say(io, JSON.stringify(users, null, 2));
        if (users.length === 0) return say(io, 'no users');
        for (const u of users)
          say(
            io,
            [
              u.id,
              u.username,
              u.email ?? '-',
              u.is_admin ? 'admin' : 'user',
              u.totp_enabled ? '2fa-on' : '2fa-off',
              u.disabled ? 'disabled' : 'enabled',
              u.created_at,
            ].join('\t'),
          );
      });
    });

  user
    .command('set-password')
    .description("set a user's password (every session of the user ends)")
    .requiredOption('--username <name>', 'the user')
    .option(...PASSWORD_OPTIONS.password)
    .option(...PASSWORD_OPTIONS.stdin)
    .action(async (opts: { username: string; password?: string }) => {
      const password = opts.password ?? (await newPassword(io));
      await withServices(io, async (s) => {
        const u = await userNamed(s, opts.username);
        await s.auth.accounts.setPassword(u.id, password);
        say(io, `password of ${u.username} set; their sessions ended`);
      });
    });

  user
    .command('reset-2fa')
    .description("turn a user's two-factor off and forget its secret (a lost phone)")
    .requiredOption('--username <name>', 'the user')
    .action(async (opts: { username: string }) => {
      await withServices(io, async (s) => {
        const u = await userNamed(s, opts.username);
        await s.auth.accounts.resetTwoFactor(u.id);
        say(io, `two-factor of ${u.username} is off; they can set it up again from their profile`);
      });
    });

  for (const [name, admin] of [
    ['make-admin', true],
    ['revoke-admin', false],
  ] as const)
    user
      .command(name)
      .description(
        admin ? 'make a user an administrator' : "take a user's administrator role (never the last one's)",
      )
      .requiredOption('--username <name>', 'the user')
      .action(async (opts: { username: string }) => {
        await withServices(io, async (s) => {
          const u = await s.auth.accounts.setAdmin((await userNamed(s, opts.username)).id, admin);
          say(io, `${u.username} is ${u.is_admin ? 'an administrator' : 'no longer an administrator'}`);
        });
      });

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const)
    user
      .command(name)
      .description(
        disabled
          ? 'disable a user: no sign-in; sessions, API key and agent tokens revoked; data kept'
          : 'enable a disabled user again (they issue a new API key)',
      )
      .requiredOption('--username <name>', 'the user')
      .action(async (opts: { username: string }) => {
        await withServices(io, async (s) => {
          const u = await s.auth.accounts.setDisabled((await userNamed(s, opts.username)).id, disabled);
          say(io, `${u.username} is ${u.disabled ? 'disabled' : 'enabled'}`);
        });
      });

  user
    .command('delete')
    .description('delete a user and everything that belongs to them (never the last administrator)')
    .requiredOption('--username <name>', 'the user')
    .requiredOption('--yes', 'confirm: the deletion cannot be undone')
    .action(async (opts: { username: string }) => {
      await withServices(io, async (s) => {
        const u = await userNamed(s, opts.username);
        await s.auth.accounts.delete(u.id);
        say(io, `deleted user ${u.username}`);
      });
    });

  program
    .command('apikey')
    .description('manage API keys')
    .command('create')
    .description('issue a new API key for a user (revokes the old one); prints only the key')
    .requiredOption('--username <name>', 'owner of the key')
    .action(async (opts: { username: string }) => {
      await withServices(io, async (s) => {
        const u = await userNamed(s, opts.username);
        if (u.disabled) throw new Error(`${u.username} is disabled: enable them first`);
        const { apikey: key } = await s.auth.apiKeys.regenerate(u.id);
        say(io, key);
      });
    });
}
