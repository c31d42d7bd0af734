// @ts-check
// Type-aware lint: `npm run lint`. Rules are typescript-eslint's recommendedTypeChecked; the few changes
// below each say why.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'dist-client/**', 'coverage/**', 'node_modules/**', '.stack/**', '.bench/**', '.scratch/**'],
  },
  {
    files: ['{src,dev,bench,scripts,test}/**/*.ts'],
    extends: [eslint.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The async mistakes a Kafka service makes: a lost rejection, a promise where a callback returns void,
      // awaiting a non-promise, a switch that forgets a case of a union.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // A variable assigned after a closure that reads it is declared (wiring order) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Forwarding a caught error of unknown type is right; rejecting with a new non-Error value is what it catches.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // tsc checks unused names already (noUnusedLocals, noUnusedParameters), honouring the `_name` convention.
      '@typescript-eslint/no-unused-vars': 'off',
      // An `async` function without `await` is deliberate where an interface returns a promise: a throw
      // inside it becomes a rejection, which is what callers of that interface handle.
      '@typescript-eslint/require-await': 'off',
      // Lists read naturally comma-joined in messages, and exhaustive defaults name the `never` value they got.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true, allowArray: true, allowNever: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests assert on decoded JSON bodies (`any` from JSON.parse and fetch) with expect(), which checks
      // their shape at run time; typing each body would restate the expectation.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // kafkajs's protocol encoders and decoders, which the tests use to build raw frames, have no type declarations.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^kafkajs/src/'] }],
    },
  },
);
