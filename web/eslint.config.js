// ESLint flat config (`npm run lint` in web/, or scripts/lint.sh). ESLint 9: it runs on Debian 12's
// Node.js 18 too. The recommended rules plus a few that catch real mistakes, for the browser code
// in src/ and for the Node scripts and tests.
import js from '@eslint/js';
import globals from 'globals';

const rules = {
  ...js.configs.recommended.rules,
  'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
  'no-useless-assignment': 'error',
  'preserve-caught-error': 'error',
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
