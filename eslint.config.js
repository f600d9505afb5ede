// ESLint 9 flat config: typescript-eslint's type-aware recommended rules, no floating promises, no import cycles.
// Every rule turned off or down below carries its reason; docs/decisions.md lists them.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import { readFileSync } from 'node:fs';

/**
 * The import-layer rule, from the one list of allowed layers (layers.json, drawn in docs/architecture.md). The
 * folders are in one order, lowest first: each may import itself and the folders before it, nothing after it, so
 * an import against the layers fails lint and no two folders can import each other (folder-level cycles).
 * `exceptions` name the few imports still waiting for their fix, one file each.
 */
function layerZones() {
  const { layers, exceptions } = JSON.parse(readFileSync(new URL('./layers.json', import.meta.url), 'utf8'));
  const order = layers.flatMap((layer) => layer.folders.map((folder) => ({ folder, layer: layer.name })));
  return order.flatMap(({ folder, layer }, i) => {
    const excepted = exceptions.filter((e) => e.folder === folder);
    const above = order.slice(i + 1).map((o) => o.folder);
    const message = `${folder} (layer "${layer}") may import only the folders listed before it in layers.json; see docs/architecture.md.`;
    const plain = above.filter((f) => !excepted.some((e) => e.imports.startsWith(`${f}/`)));
    return [
      ...(plain.length > 0 ? [{ target: folder, from: plain, message }] : []),
      ...excepted.map((e) => {
        const from = above.find((f) => e.imports.startsWith(`${f}/`));
        return { target: folder, from, except: [`./${e.imports.slice(from.length + 1)}`], message };
      }),
    ];
  });
}

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'preview-pages/assets/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // Plain JavaScript (this config, the conformance proxy) is outside the TypeScript program: lint it without types.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly', Buffer: 'readonly', setTimeout: 'readonly' } },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        // scripts/ is outside tsconfig's include (it is not part of the build); lint it with the same options.
        // test/api/openapi-client/ is left out of tsconfig because its types are generated at test time
        // (test/api/openapi-client.test.ts type-checks it against them); lint it all the same.
        projectService: { allowDefaultProject: ['scripts/*.ts', 'test/api/openapi-client/*.ts'], defaultProject: 'tsconfig.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Which files import-x reads to follow imports (by default only .js): the TypeScript sources, with its parser.
      'import-x/extensions': ['.ts', '.tsx', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // NodeNext sources import './x.js' for './x.ts': the resolver maps the extension back.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.json'],
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Dynamic import() counts too: a lazy import does not make a cycle acceptable.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // Folders import only lower layers (layers.json, docs/architecture.md); type-only imports count too.
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones() }],
      // A leading underscore marks a deliberately unused binding (rest-omit destructuring, callback signatures).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Async methods without await implement Promise-returning interfaces (Carrier, Transport, ToolDef.run, stubs):
      // `async` keeps a synchronous throw a rejection, which callers rely on.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON (`await res.json()`, SDK results, fixtures) and assert on its shape: the assertions are
    // the type check there, and casting every response first would only add noise.
    files: ['test/**/*.ts', 'test/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // expect(obj.method).toHaveBeenCalled() and spies pass methods unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
