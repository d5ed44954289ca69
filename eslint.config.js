// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // openapi.d.ts is generated from the server's schemas (npm run api:types).
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'web/dist/**',
      'web/src/api/openapi.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // The web console runs in the browser (docs/rules/web.md): browser globals, not Node's
    // `process` (TypeScript checks the rest against the DOM library of web/tsconfig.json).
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        process: 'off',
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        console: 'readonly',
      },
    },
  },
  {
    files: [
      'src/cli.ts',
      'src/cli/**/*.ts',
      'bench/**/*.ts',
      'scripts/**/*.ts',
      'test/**/*.ts',
      '**/*.test.ts',
    ],
    rules: { 'no-console': 'off' },
  },
);
