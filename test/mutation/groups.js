/**
 * The modules `npm run test:mutation` mutates, each with the jest files that test it (issue: writes/, engine/batch,
 * webhook/, feed/ and transport's guard, attempt and retry). Stryker runs one group at a time, so a group that
 * finished keeps its report even when a later one is stopped. Unit files only: Stryker runs every test that covers
 * a mutant, and node-level files (n8n's engine or the sandbox, test/security included) made each mutant take tens of
 * seconds to minutes on this shared machine.
 */
const R = 'nodes/RecruitingAnalysis';

/** @type {Array<{ name: string; mutate: string[]; tests: string[] }>} */
const GROUPS = [
	{
		name: 'feed',
		mutate: [`${R}/feed/*.ts`],
		tests: ['test/unit/feed', 'test/nodes/triggers/feedTrigger.test.ts'],
	},
	{
		name: 'transport',
		mutate: [`${R}/transport/guard.ts`, `${R}/transport/attempt.ts`, `${R}/transport/retry.ts`],
		tests: ['test/unit/transport'],
	},
	{
		name: 'webhook',
		mutate: [`${R}/webhook/*.ts`],
		tests: ['test/unit/webhook'],
	},
	{
		name: 'engine/batch',
		mutate: [`${R}/engine/batch.ts`, `${R}/engine/batchTiming.ts`],
		tests: ['test/unit/engine'],
	},
	{
		name: 'writes',
		mutate: [`${R}/writes/*.ts`],
		tests: ['test/unit/writes'],
	},
];

module.exports = { GROUPS };
