// ESLint flat config (`npx eslint` in web/, or scripts/lint.sh): the recommended rules plus a few
// that catch real mistakes, for the browser code in src/ and the Node scripts and tests.
import js from '@eslint/js';
import globals from 'globals';

const rules = {
  ...js.configs.recommended.rules,
  'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
  'no-var': 'error',
  'prefer-const': ['error', { destructuring: 'all' }],
  eqeqeq: ['error', 'always'],
  'no-implicit-globals': 'error',
  'no-use-before-define': ['error', { functions: false, classes: true, variables: true }],
};

export default [
  { ignores: ['node_modules/**', 'dist/**'] },
  {
    files: ['src/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
    rules: { ...rules, 'no-shadow': 'error' },
  },
  {
    // Node scripts and tests; the tests' page.evaluate() callbacks run in the browser
    files: ['*.js', '*.mjs', 'tests/**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
    rules,
  },
];
