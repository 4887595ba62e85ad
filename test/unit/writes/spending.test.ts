/**
 * The Spending Limit's store (writes/spending.ts): the execution's total is kept in n8n's flow context of the
 * execution (saved with it and restored when it resumes), writes in flight are counted across every lane of the
 * execution in this process, and a write re-quoted after QUOTE_STALE is checked again at its new price.
 *
 * The contexts here are the smallest stand-in for n8n's execute context: `getContext('flow')` hands out one object
 * per execution, as n8n-workflow's NodeHelpers.getContext does from the execution's `executionData.contextData`.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	chargedWrite,
	isSpendingLimitError,
	ledgerOf,
	reserveCredits,
	SPENT_FIELD,
} from '../../../nodes/RecruitingAnalysis/writes/spending';

/** An execute context of an execution whose context data is `contextData` (n8n: executionData.contextData). */
function contextOf(contextData: IDataObject, spendingLimit?: number): IExecuteFunctions {
	return {
		getContext: (type: string) => {
			contextData[type] ??= {};
			return contextData[type];
		},
		getNode: () => ({ name: 'Recruiting Analysis' }),
		getNodeParameter: (name: string, _itemIndex: number, fallback: unknown) =>
			name === 'spendingLimit' ? (spendingLimit ?? 0) : fallback,
	} as unknown as IExecuteFunctions;
}

const quote = (credits: number) => ({ creditUnits: credits * 100, creditScale: 100 });
/** The execution's data as n8n saves it to its database and reads it back (JSON). */
const savedAndRestored = (contextData: IDataObject) =>
	JSON.parse(JSON.stringify(contextData)) as IDataObject;

describe("the Spending Limit's store", () => {
	it("keeps what was charged in the execution's flow context, under one field", async () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 5);
		const out = await chargedWrite(ctx, 0, quote(2), 'analysis', async () => ({ id: 'a' }));
		expect(out.creditsUsed).toBe(2);
		expect(data).toEqual({ flow: { [SPENT_FIELD]: 2 } });
	});

	it('a resumed execution (its data saved and read back, in any process) continues from its total', async () => {
		const data: IDataObject = {};
		await chargedWrite(contextOf(data, 3), 0, quote(2), 'analysis', async () => ({ id: 'a' }));
		const resumed = contextOf(savedAndRestored(data), 3);
		expect(ledgerOf(resumed).spent).toBe(2);
		let sent = false;
		const refused = await chargedWrite(resumed, 0, quote(2.5), 'invitation', async () => {
			sent = true;
			return { id: 'i' };
		}).catch((error: unknown) => error);
		expect(sent).toBe(false);
		expect(isSpendingLimitError(refused)).toBe(true);
		expect(String((refused as Error).message)).toBe(
			'Spending Limit of 3 credits reached: this invitation costs 2.5 credits and 2 were already spent. Nothing was sent.',
		);
		const description = String((refused as { description?: string }).description);
		expect(description).toContain('Raise Spending Limit (Credits) on this node');
		expect(description).toContain("n8n's Retry of this execution carries its total on");
		// Another execution (new context data) starts from 0.
		const other = await chargedWrite(contextOf({}, 3), 0, quote(2.5), 'invitation', async () => ({
			id: 'j',
		}));
		expect(other.creditsUsed).toBe(2.5);
	});

	it('says the refusal in plain words, one credit and one spent in the singular', async () => {
		const data: IDataObject = {};
		await chargedWrite(contextOf(data, 1), 0, quote(1), 'analysis', async () => ({ id: 'a' }));
		const refused = await chargedWrite(contextOf(data, 1), 0, quote(1), 'analysis', async () => ({
			id: 'b',
		})).catch((error: unknown) => error);
		expect(String((refused as Error).message)).toBe(
			'Spending Limit of 1 credit reached: this analysis costs 1 credit and 1 was already spent. Nothing was sent.',
		);
	});

	it('counts writes in flight across the lanes of an execution: two lanes cannot both take the last credits', () => {
		const data: IDataObject = {};
		const first = reserveCredits(contextOf(data, 3), 0, quote(2), 'analysis');
		// A second lane of the same execution (another execute context, the same flow context).
		expect(() => reserveCredits(contextOf(data, 3), 1, quote(2), 'analysis')).toThrow(
			'Spending Limit of 3 credits reached',
		);
		first.release();
		const second = reserveCredits(contextOf(data, 3), 1, quote(2), 'analysis');
		second.charged();
		expect(ledgerOf(contextOf(data)).spent).toBe(2);
		expect(ledgerOf(contextOf(data)).inFlight).toBe(0);
	});

	it('checks a re-quoted write at its new price before it is sent again, and releases it when it does not fit', async () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 5);
		const sent: number[] = [];
		const refused = await chargedWrite(ctx, 0, quote(1), 'analysis', async (reprice) => {
			sent.push(1);
			reprice(quote(50));
			sent.push(50);
			return { id: 'a' };
		}).catch((error: unknown) => error);
		expect(sent).toEqual([1]);
		expect(String((refused as Error).message)).toContain(
			'this analysis costs 50 credits (quoted again) and 0 were already spent',
		);
		expect(ledgerOf(ctx)).toMatchObject({ spent: 0, inFlight: 0 });
		const within = await chargedWrite(ctx, 0, quote(1), 'analysis', async (reprice) => {
			reprice(quote(4));
			return { id: 'b' };
		});
		expect(within.creditsUsed).toBe(4);
		expect(ledgerOf(ctx).spent).toBe(4);
	});

	it('a recovered write and a refused one count nothing; a lost answer counts as charged', async () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 10);
		await chargedWrite(ctx, 0, quote(2), 'analysis', async () => ({ recovered: true }));
		const refusal = Object.assign(new Error('refused'), { context: { apiError: { status: 422 } } });
		await chargedWrite(ctx, 0, quote(2), 'analysis', async () => {
			throw refusal;
		}).catch(() => undefined);
		expect(ledgerOf(ctx).spent).toBe(0);
		await chargedWrite(ctx, 0, quote(3), 'analysis', async () => {
			throw new Error('socket hang up');
		}).catch(() => undefined);
		expect(ledgerOf(ctx).spent).toBe(3);
	});

	it("without a flow context (a bare harness), the total is the node run's own", () => {
		const ctx = {
			getContext: () => {
				throw new Error('`executionData` is not initialized');
			},
			getNode: () => ({ name: 'Recruiting Analysis' }),
			getNodeParameter: (name: string) => (name === 'spendingLimit' ? 2 : {}),
		} as unknown as IExecuteFunctions;
		reserveCredits(ctx, 0, quote(2), 'analysis').charged();
		expect(() => reserveCredits(ctx, 0, quote(1), 'analysis')).toThrow('Spending Limit');
	});
});
