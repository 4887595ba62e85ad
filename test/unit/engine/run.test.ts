/**
 * The run object (engine/run.ts): runNode makes one per node execution and hands it to check, execute and the
 * stages, so nothing of one run (notices shown, writes seen, the spending total without a flow context) leaks into
 * the next, and an execution with its own flow context (a sub-workflow) keeps its own spending total.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { Run, runNode, type OperationModule } from '../../../nodes/RecruitingAnalysis/engine/run';
import { recordWrite } from '../../../nodes/RecruitingAnalysis/writes/identity';
import { ledgerOf, reserveCredits } from '../../../nodes/RecruitingAnalysis/writes/spending';
import { fakeContext, ok } from '../../helpers/fakes';

const quote = (credits: number) => ({ fingerprint: 'f', creditUnits: credits, creditScale: 1 });

/** One node execution of `items` items of a test operation, in a context of its own (as n8n gives each execution). */
async function execution(operation: OperationModule, items: number, flow?: IDataObject) {
	const { ctx, hints } = fakeContext(() => ok({}), {
		resource: 'test',
		operation: 'run',
		spendingLimit: 5,
	});
	const context = {
		...ctx,
		getInputData: () => Array.from({ length: items }, () => ({ json: {} })),
		getNode: () => ({ name: 'Recruiting Analysis', type: 'recruitingAnalysis' }),
		...(flow ? { getContext: () => flow } : {}),
	} as unknown as IExecuteFunctions;
	const output = await runNode.call(context, { test: { run: operation } });
	return { output: output[0].map((item) => item.json), hints };
}

describe('the run object', () => {
	it('is one per node execution: check, execute and every item of it get the same run, the next execution a new one', async () => {
		const seen: Run[] = [];
		let after = 0;
		const operation: OperationModule = {
			description: [],
			check: async function (_itemIndex, run) {
				seen.push(run);
				return undefined;
			},
			execute: async function (itemIndex, _checked, run) {
				seen.push(run);
				return { first: recordWrite(run, 'same-file', after + itemIndex) ?? null };
			},
		};
		const first = await execution(operation, 3);
		expect(first.output).toEqual([{ first: null }, { first: 1 }, { first: 1 }]);
		expect(new Set(seen).size).toBe(1);
		// The same workflow executed again: the write item 0 made before is not this run's.
		after = 1;
		const second = await execution(operation, 1);
		expect(second.output).toEqual([{ first: null }]);
		expect(new Set(seen).size).toBe(2);
	});

	it('shows each notice once per run, and again in the next run', async () => {
		const operation: OperationModule = {
			description: [],
			execute: async function (_itemIndex, _checked, run) {
				run.addNotice('quoteNotBinding');
				run.addNotice('quoteNotBinding');
				return {};
			},
		};
		expect((await execution(operation, 3)).hints).toHaveLength(1);
		expect((await execution(operation, 2)).hints).toHaveLength(1);
	});

	it('keeps the spending total per run without a flow context, and per flow context with one (a sub-workflow keeps its own)', async () => {
		const spend = (credits: number): OperationModule => ({
			description: [],
			execute: async function (itemIndex, _checked, run) {
				reserveCredits(this, run, itemIndex, quote(credits), 'analysis').charged();
				return { spent: ledgerOf(this, run).spent };
			},
		});
		// Without a flow context each execution starts from 0: 4 + 4 would pass the limit of 5 if it leaked.
		expect((await execution(spend(4), 1)).output).toEqual([{ spent: 4 }]);
		expect((await execution(spend(4), 1)).output).toEqual([{ spent: 4 }]);
		const parent: IDataObject = {};
		const sub: IDataObject = {};
		expect((await execution(spend(3), 1, parent)).output).toEqual([{ spent: 3 }]);
		expect((await execution(spend(4), 1, sub)).output).toEqual([{ spent: 4 }]);
		// The parent's own total is kept in its flow context, beside the sub-workflow's.
		expect((await execution(spend(2), 1, parent)).output).toEqual([{ spent: 5 }]);
		expect((await execution(spend(1), 1, sub)).output).toEqual([{ spent: 5 }]);
	});

	it('refuses an item whose operation no resource knows with the checks, before any item is executed', async () => {
		const executed: number[] = [];
		const operation: OperationModule = {
			description: [],
			execute: async function (itemIndex) {
				executed.push(itemIndex);
				return {};
			},
		};
		const { ctx } = fakeContext(() => ok({}));
		const context = {
			...ctx,
			getInputData: () => [{ json: {} }, { json: {} }],
			getNode: () => ({ name: 'Recruiting Analysis', type: 'recruitingAnalysis' }),
			getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) =>
				({ resource: 'test', operation: itemIndex === 0 ? 'run' : 'fly' })[name] ?? fallback,
		} as unknown as IExecuteFunctions;
		await expect(runNode.call(context, { test: { run: operation } })).rejects.toThrow(
			'The operation "fly" is not known for resource "test" [item 2]',
		);
		expect(executed).toEqual([]);
	});

	it('keeps two runs apart when they exist at once', () => {
		const a = new Run({} as IExecuteFunctions);
		const b = new Run({} as IExecuteFunctions);
		expect(recordWrite(a, 'k', 0)).toBeUndefined();
		expect(recordWrite(a, 'k', 2)).toBe(1);
		expect(recordWrite(b, 'k', 2)).toBeUndefined();
		expect(a.reportWaiter()).toBe(a.reportWaiter());
		expect(a.reportWaiter()).not.toBe(b.reportWaiter());
	});
});
