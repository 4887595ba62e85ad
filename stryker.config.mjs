// Mutation testing (npm run test:mutation, test/mutation/run.ts): one group of modules per run, named by
// RA_MUTATION_GROUP, with the jest files of that group (test/mutation/groups.js).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { GROUPS } = require('./test/mutation/groups.js');

const group = GROUPS.find((g) => g.name === process.env.RA_MUTATION_GROUP);
if (!group)
	throw new Error(`RA_MUTATION_GROUP must be one of: ${GROUPS.map((g) => g.name).join(', ')}`);
const slug = group.name.replace(/\W+/g, '-');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	packageManager: 'npm',
	testRunner: 'jest',
	jest: { projectType: 'custom', configFile: 'test/mutation/jest.config.js' },
	checkers: ['typescript'],
	// The product's own tsconfig (nodes and credentials): a mutant that does not compile there is not counted.
	tsconfigFile: 'tsconfig.json',
	coverageAnalysis: 'perTest',
	// The machine's 2 cores are shared with other jobs: one Stryker test process.
	concurrency: Number(process.env.RA_MUTATION_CONCURRENCY ?? 1),
	mutate: group.mutate,
	ignorePatterns: [
		'dist',
		'coverage',
		'bench/out',
		'test/e2e/artifacts',
		'.n8n-runs',
		'reports',
		'.stryker-tmp',
	],
	reporters: ['json', 'progress'],
	jsonReporter: { fileName: `reports/mutation/${slug}.json` },
	incremental: true,
	incrementalFile: `reports/mutation/${slug}.incremental.json`,
	tempDirName: `.stryker-tmp/${slug}`,
	cleanTempDir: 'always',
	// Added to each test's time in the dry run: a mutant that stretches a retry wait past it counts as timed out.
	timeoutMS: 10_000,
	timeoutFactor: 2,
};
