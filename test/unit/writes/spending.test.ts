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
	countBatch,
	creditsOf,
	explainsRefusal,
	ledgerOf,
	reserveCredits,
	RETRY_SPENDS,
	settleBatchItem,
	SPENT_FIELD,
	spendingLimitOf,
	wasRefused,
} from '../../../nodes/RecruitingAnalysis/writes/spending';
import { runOf, withRun } from '../engine/runOf';

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
		const out = await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => ({
			id: 'a',
		}));
		expect(out.creditsUsed).toBe(2);
		expect(data).toEqual({ flow: { [SPENT_FIELD]: 2 } });
	});

	it('a resumed execution (its data saved and read back, in any process) continues from its total', async () => {
		const data: IDataObject = {};
		await chargedWrite(...withRun(contextOf(data, 3)), 0, quote(2), 'analysis', async () => ({
			id: 'a',
		}));
		const resumed = contextOf(savedAndRestored(data), 3);
		expect(ledgerOf(resumed, runOf(resumed)).spent).toBe(2);
		let sent = false;
		const refused = await chargedWrite(
			resumed,
			runOf(resumed),
			0,
			quote(2.5),
			'invitation',
			async () => {
				sent = true;
				return { id: 'i' };
			},
		).catch((error: unknown) => error);
		expect(sent).toBe(false);
		expect(wasRefused(refused)).toBe(true);
		expect(String((refused as Error).message)).toBe(
			'Spending Limit of 3 credits reached: this invitation costs 2.5 credits and 2 were already spent. Nothing was sent.',
		);
		const description = String((refused as { description?: string }).description);
		expect(description).toContain('Raise Spending Limit (Credits) on this node');
		expect(description).toContain("n8n's Retry of this execution carries its total on");
		// Another execution (new context data) starts from 0.
		const other = await chargedWrite(
			contextOf({}, 3),
			runOf(contextOf({}, 3)),
			0,
			quote(2.5),
			'invitation',
			async () => ({
				id: 'j',
			}),
		);
		expect(other.creditsUsed).toBe(2.5);
	});

	it('says the refusal in plain words, one credit and one spent in the singular', async () => {
		const data: IDataObject = {};
		await chargedWrite(...withRun(contextOf(data, 1)), 0, quote(1), 'analysis', async () => ({
			id: 'a',
		}));
		const refused = await chargedWrite(
			...withRun(contextOf(data, 1)),
			0,
			quote(1),
			'analysis',
			async () => ({
				id: 'b',
			}),
		).catch((error: unknown) => error);
		expect(String((refused as Error).message)).toBe(
			'Spending Limit of 1 credit reached: this analysis costs 1 credit and 1 was already spent. Nothing was sent.',
		);
	});

	it('counts writes in flight across the lanes of an execution: two lanes cannot both take the last credits', () => {
		const data: IDataObject = {};
		const first = reserveCredits(...withRun(contextOf(data, 3)), 0, quote(2), 'analysis');
		// A second lane of the same execution (another execute context, the same flow context).
		expect(() =>
			reserveCredits(contextOf(data, 3), runOf(contextOf(data, 3)), 1, quote(2), 'analysis'),
		).toThrow('Spending Limit of 3 credits reached');
		first.release();
		const second = reserveCredits(
			contextOf(data, 3),
			runOf(contextOf(data, 3)),
			1,
			quote(2),
			'analysis',
		);
		second.charged();
		expect(ledgerOf(...withRun(contextOf(data))).spent).toBe(2);
		expect(ledgerOf(...withRun(contextOf(data))).inFlight).toBe(0);
	});

	it('checks a re-quoted write at its new price before it is sent again, and releases it when it does not fit', async () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 5);
		const sent: number[] = [];
		const refused = await chargedWrite(
			ctx,
			runOf(ctx),
			0,
			quote(1),
			'analysis',
			async (reprice) => {
				sent.push(1);
				reprice(quote(50));
				sent.push(50);
				return { id: 'a' };
			},
		).catch((error: unknown) => error);
		expect(sent).toEqual([1]);
		expect(String((refused as Error).message)).toContain(
			'this analysis costs 50 credits (quoted again) and 0 were already spent',
		);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 0, inFlight: 0 });
		const within = await chargedWrite(ctx, runOf(ctx), 0, quote(1), 'analysis', async (reprice) => {
			reprice(quote(4));
			return { id: 'b' };
		});
		expect(within.creditsUsed).toBe(4);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(4);
	});

	it('a recovered write and a refused one count nothing; a lost answer counts as charged', async () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 10);
		await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => ({ recovered: true }));
		const refusal = Object.assign(new Error('refused'), { context: { apiError: { status: 422 } } });
		await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => {
			throw refusal;
		}).catch(() => undefined);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(0);
		await chargedWrite(ctx, runOf(ctx), 0, quote(3), 'analysis', async () => {
			throw new Error('socket hang up');
		}).catch(() => undefined);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(3);
	});

	it("counts a created batch's items in the saved total at once, gives back only what its answer shows uncharged, and never counts the same batch twice in one execution", () => {
		const data: IDataObject = {};
		const ctx = contextOf(data, 5);
		const items = ['item-0', 'item-1'].map((itemKey) => ({
			itemKey,
			reservation: reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis'),
		}));
		expect(countBatch(ctx, runOf(ctx), 'bat_1', items)).toBe(false);
		// Saved before the batch is awaited: a wait that fails now leaves 4 credits counted.
		const savedAtFailedWait = savedAndRestored(data);
		expect(ledgerOf(...withRun(contextOf(savedAtFailedWait, 5))).spent).toBe(4);
		expect(ledgerOf(ctx, runOf(ctx)).inFlight).toBe(0);
		settleBatchItem(ctx, runOf(ctx), 'bat_1', 'item-0', items[0].reservation, true);
		settleBatchItem(ctx, runOf(ctx), 'bat_1', 'item-1', items[1].reservation, false);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(2);
		// A Retry of the execution from its saved data, after a wait that failed: the same batch answered again.
		const again = contextOf(savedAtFailedWait, 5);
		const reserved = ['item-0', 'item-1'].map((itemKey) => ({
			itemKey,
			reservation: reserveCredits(again, runOf(again), 0, quote(0.5), 'analysis'),
		}));
		expect(countBatch(again, runOf(again), 'bat_1', reserved)).toBe(true);
		expect(ledgerOf(again, runOf(again)).spent).toBe(4);
		settleBatchItem(again, runOf(again), 'bat_1', 'item-0', reserved[0].reservation, true);
		settleBatchItem(again, runOf(again), 'bat_1', 'item-1', reserved[1].reservation, false);
		settleBatchItem(again, runOf(again), 'bat_1', 'item-1', reserved[1].reservation, false);
		expect(ledgerOf(again, runOf(again)).spent).toBe(2);
		expect(ledgerOf(again, runOf(again)).inFlight).toBe(0);
	});

	it("without a flow context (a bare harness), the total is the node run's own", () => {
		const ctx = {
			getContext: () => {
				throw new Error('`executionData` is not initialized');
			},
			getNode: () => ({ name: 'Recruiting Analysis' }),
			getNodeParameter: (name: string) => (name === 'spendingLimit' ? 2 : {}),
		} as unknown as IExecuteFunctions;
		reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis').charged();
		expect(() => reserveCredits(ctx, runOf(ctx), 0, quote(1), 'analysis')).toThrow(
			'Spending Limit',
		);
	});
});

/** An execute context whose Spending Limit field holds `value` as n8n gives it, of a node of `type`. */
function withLimitField(value: unknown, type = 'n8n-nodes-recruiting-analysis.recruitingAnalysis') {
	const data: IDataObject = {};
	const ctx = {
		getContext: (kind: string) => (data[kind] ??= {}),
		getNode: () => ({ name: 'Recruiting Analysis', type }),
		getNodeParameter: (name: string, _itemIndex: number, fallback: unknown) =>
			name === 'spendingLimit' ? value : fallback,
	} as unknown as IExecuteFunctions;
	return { ctx, data };
}

const errorOf = (run: () => unknown) => {
	try {
		run();
	} catch (error) {
		return error as { message: string; description?: string };
	}
	throw new Error('expected an error');
};

describe('the Spending Limit field, prices and settlements', () => {
	it.each([
		['empty', ''],
		['null', null],
		['0', 0],
	])('%s means no limit: any price is sent', (_name, value) => {
		expect(spendingLimitOf(withLimitField(value).ctx, 0)).toBeUndefined();
		expect(
			reserveCredits(
				withLimitField(value).ctx,
				runOf(withLimitField(value).ctx),
				0,
				quote(1000),
				'analysis',
			).credits,
		).toBe(1000);
	});

	it.each([
		['not a number', 'ten', 'ten'],
		['negative', -1, '-1'],
		['infinite', 'Infinity', 'Infinity'],
	])(
		'a limit that is %s is refused before anything is sent, naming the field and the rule',
		(_n, value, shown) => {
			const error = errorOf(() =>
				reserveCredits(
					withLimitField(value).ctx,
					runOf(withLimitField(value).ctx),
					0,
					quote(1),
					'analysis',
				),
			);
			expect(error.message).toBe(
				'"Spending Limit (Credits)" must be a number of credits, 0 or more',
			);
			expect(error.description).toBe(
				`Change "Spending Limit (Credits)" (now "${shown}"), or set 0 for no limit. Nothing was sent to the Recruiting Analysis API.`,
			);
		},
	);

	it('a write that reaches the limit exactly is sent; one beyond it is not', () => {
		const { ctx } = withLimitField(3);
		reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis').charged();
		reserveCredits(ctx, runOf(ctx), 0, quote(1), 'analysis').charged();
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(3);
		expect(() => reserveCredits(ctx, runOf(ctx), 0, quote(0.01), 'analysis')).toThrow(
			'Spending Limit of 3 credits reached: this analysis costs 0.01 credits and 3 were already spent. Nothing was sent.',
		);
	});

	it('a refusal names the credits other lanes have in flight; without any it says nothing of them', () => {
		const { ctx } = withLimitField(3);
		const held = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		expect(
			errorOf(() => reserveCredits(ctx, runOf(ctx), 1, quote(1.5), 'invitation')).message,
		).toBe(
			'Spending Limit of 3 credits reached: this invitation costs 1.5 credits and 0 were already spent (2 more in flight). Nothing was sent.',
		);
		held.release();
		expect(errorOf(() => reserveCredits(ctx, runOf(ctx), 1, quote(4), 'invitation')).message).toBe(
			'Spending Limit of 3 credits reached: this invitation costs 4 credits and 0 were already spent. Nothing was sent.',
		);
	});

	it.each([
		['no credit units', { creditScale: 100 }],
		['no credit scale', { creditUnits: 100 }],
		['a zero scale', { creditUnits: 100, creditScale: 0 }],
		['a negative scale', { creditUnits: 100, creditScale: -100 }],
	])('a quote with %s gives no price: with a limit the write is not sent', (_name, q) => {
		expect(creditsOf(q)).toBeUndefined();
		const error = errorOf(() =>
			reserveCredits(withLimitField(5).ctx, runOf(withLimitField(5).ctx), 0, q, 'analysis'),
		);
		expect(error.message).toBe(
			'The quote of this analysis gives no price, so the Spending Limit cannot be kept',
		);
		expect(error.description).toBe(
			'With a Spending Limit set, the node sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write), or set the Spending Limit to 0 (no limit). Nothing was sent for this item.',
		);
	});

	it("as an agent's tool that sets no limit, 10 credits per execution, said in the builder's words", () => {
		const { ctx } = withLimitField(0, 'n8n-nodes-recruiting-analysis.recruitingAnalysisTool');
		reserveCredits(ctx, runOf(ctx), 0, quote(10), 'analysis').charged();
		const error = errorOf(() => reserveCredits(ctx, runOf(ctx), 0, quote(1), 'analysis'));
		expect(error.message).toBe(
			"Spending Limit of 10 credits reached (an agent's tool that sets none keeps this one): this analysis costs 1 credit and 10 were already spent. Nothing was sent.",
		);
		expect(error.description).toBe(
			`To allow more, set this tool's Spending Limit (Credits): the builder's choice, never the model's. What was done is recovered, not charged again. ${RETRY_SPENDS}`,
		);
		const unpriced = errorOf(() =>
			reserveCredits(
				withLimitField('', 'x.recruitingAnalysisTool').ctx,
				runOf(withLimitField('', 'x.recruitingAnalysisTool').ctx),
				0,
				{},
				'invitation',
			),
		);
		expect(unpriced.description).toBe(
			"As an agent's tool the node keeps a Spending Limit (10 credits per execution when it sets none), so it sends a charged write only when it knows its price. Turn Quote Automatically on (the node then quotes each write). Nothing was sent for this item.",
		);
	});

	it('a node that is not a tool and sets no limit sends any price', () => {
		const { ctx } = withLimitField(0, 'n8n-nodes-recruiting-analysis.recruitingAnalysisToolbox');
		expect(reserveCredits(ctx, runOf(ctx), 0, quote(11), 'analysis').credits).toBe(11);
	});

	it('a reservation counted before its answer is read counts once, and is taken back only when nothing was charged', () => {
		const { ctx } = withLimitField(10);
		const kept = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		kept.mayHaveCharged();
		kept.mayHaveCharged();
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
		kept.charged();
		kept.release();
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
		const back = reserveCredits(ctx, runOf(ctx), 0, quote(3), 'analysis');
		back.mayHaveCharged();
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(5);
		back.release();
		back.release();
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
	});

	it('a held reservation settled twice counts once', () => {
		const { ctx } = withLimitField(10);
		const once = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		once.charged();
		once.charged();
		once.release();
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
	});

	it('a re-quoted write holds its new price in flight, not the old one', () => {
		const { ctx } = withLimitField(10);
		const r = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		r.reprice(quote(3));
		expect(ledgerOf(ctx, runOf(ctx)).inFlight).toBe(3);
		expect(r.credits).toBe(3);
		r.charged();
		r.reprice(quote(9));
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 3, inFlight: 0 });
	});

	it('a repeat re-quoted past the limit inside a charged write is not sent at the new price', async () => {
		const { ctx } = withLimitField(5);
		let sentAgain = false;
		const error = await chargedWrite(ctx, runOf(ctx), 0, quote(1), 'analysis', async (reprice) => {
			reprice(quote(6));
			sentAgain = true;
			return { id: 'a' };
		}).catch((e: unknown) => e);
		expect(sentAgain).toBe(false);
		expect(wasRefused(error)).toBe(true);
		expect((error as Error).message).toMatch(/^Spending Limit of 5 credits reached: /);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 0, inFlight: 0 });
	});

	it.each([
		[300, 2],
		[308, 2],
		[400, 0],
		[404, 0],
		[499, 0],
		[408, 2],
		[429, 2],
		[500, 2],
		[503, 2],
	])(
		'a write answered %i counts %i credits (a 4xx refusal charged nothing, other answers, a redirect the node did not follow among them, may have charged)',
		async (status, spent) => {
			const { ctx } = withLimitField(10);
			const answered = Object.assign(new Error(`status ${status}`), {
				context: { apiError: { status } },
			});
			await expect(
				chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => {
					throw answered;
				}),
			).rejects.toBe(answered);
			expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent, inFlight: 0 });
			expect(wasRefused(answered)).toBe(spent === 0);
		},
	);

	it('a write the node explained as a refusal counts nothing; a created one says what it used, a recovered one does not', async () => {
		const { ctx } = withLimitField(10);
		const explained = explainsRefusal(new Error('Report already has interview int_1'));
		await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'invitation', async () => {
			throw explained;
		}).catch(() => undefined);
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(0);
		expect(
			await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => ({
				recovered: true,
			})),
		).toEqual({
			recovered: true,
		});
		expect(
			await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => ({
				id: 'a',
				recovered: false,
			})),
		).toEqual({ id: 'a', recovered: false, creditsUsed: 2 });
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(2);
	});

	it('an execution saved with a total keeps it under the field earlier versions wrote', () => {
		const { ctx, data } = withLimitField(10);
		data.flow = { recruitingAnalysisSpentCredits: 4 };
		expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(4);
	});
});

describe('the batches an execution created, kept with it', () => {
	it('an execution saved with a batch record knows that batch as its own on Retry, under the field it was saved in', () => {
		const { ctx, data } = withLimitField(10);
		data.flow = {
			recruitingAnalysisSpentCredits: 2,
			recruitingAnalysisBatchCharges: { bat_1: { 'item-0': 2 } },
		};
		const reservation = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		expect(countBatch(ctx, runOf(ctx), 'bat_1', [{ itemKey: 'item-0', reservation }])).toBe(true);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 2, inFlight: 0 });
	});

	it('a damaged batch record is started afresh, and the batch counts', () => {
		for (const damaged of ['bat_1', ['bat_1'], null]) {
			const { ctx, data } = withLimitField(10);
			data.flow = { recruitingAnalysisBatchCharges: damaged };
			const reservation = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
			expect(countBatch(ctx, runOf(ctx), 'bat_1', [{ itemKey: 'item-0', reservation }])).toBe(
				false,
			);
			expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(2);
			expect((data.flow as IDataObject).recruitingAnalysisBatchCharges).toEqual({
				bat_1: { 'item-0': 2 },
			});
		}
	});
});

describe('the Spending Limit, edge cases a user can reach', () => {
	it('0 given as text by an expression means no limit, as the number 0 does', () => {
		expect(spendingLimitOf(withLimitField('0').ctx, 0)).toBeUndefined();
		expect(spendingLimitOf(withLimitField(' 2.5 ').ctx, 0)).toBe(2.5);
	});

	it('a refused limit quotes at most 40 characters of what was given', () => {
		const error = errorOf(() => spendingLimitOf(withLimitField(`${'x'.repeat(40)}TAIL`).ctx, 0));
		expect(error.description).toBe(
			`Change "Spending Limit (Credits)" (now "${'x'.repeat(40)}"), or set 0 for no limit. Nothing was sent to the Recruiting Analysis API.`,
		);
	});

	it('a damaged saved total (negative or not a number) counts as nothing spent', () => {
		for (const damaged of [-5, 'abc', 0]) {
			const { ctx, data } = withLimitField(10);
			data.flow = { recruitingAnalysisSpentCredits: damaged };
			expect(ledgerOf(ctx, runOf(ctx)).spent).toBe(0);
		}
	});

	it('a write without a price and without a limit is sent and says nothing of credits used', async () => {
		const { ctx } = withLimitField(0);
		expect(
			await chargedWrite(ctx, runOf(ctx), 0, undefined, 'analysis', async () => ({ id: 'a' })),
		).toEqual({
			id: 'a',
		});
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 0, inFlight: 0 });
	});

	it('a recovered write holds nothing in flight afterwards', async () => {
		const { ctx } = withLimitField(3);
		await chargedWrite(ctx, runOf(ctx), 0, quote(2), 'analysis', async () => ({ recovered: true }));
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 0, inFlight: 0 });
		expect(reserveCredits(ctx, runOf(ctx), 0, quote(3), 'analysis').credits).toBe(3);
	});

	it('an item of a batch this execution does not know is settled without error: refused, it is released', () => {
		const { ctx } = withLimitField(10);
		const reservation = reserveCredits(ctx, runOf(ctx), 0, quote(2), 'analysis');
		settleBatchItem(ctx, runOf(ctx), 'bat_unknown', 'item-0', reservation, false);
		expect(ledgerOf(ctx, runOf(ctx))).toMatchObject({ spent: 0, inFlight: 0 });
	});
});
