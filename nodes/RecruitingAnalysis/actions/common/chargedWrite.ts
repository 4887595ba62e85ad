import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { hasApiCondition, onApiCondition, outcomeOf } from '../../transport';
import { validateFingerprint } from '../../validation';
import { recoverWrite, withRecovery, type ExistingWrite } from '../../writes/recover';
import { chargedWrite, type WriteRun } from '../../writes/spending';

export type QuoteChoice = ReturnType<typeof readQuoteChoice>;

export function readQuoteChoice(ctx: IExecuteFunctions, itemIndex: number) {
	const quoteAutomatically = ctx.getNodeParameter('quoteAutomatically', itemIndex, true) as boolean;
	if (quoteAutomatically) return { quoteAutomatically };
	const raw = ctx.getNodeParameter('quoteFingerprint', itemIndex, '') as string;
	return { quoteAutomatically, quoteFingerprint: validateFingerprint.call(ctx, raw, itemIndex) };
}

export interface ChargedRequest {
	what: string;
	existing: ExistingWrite;
	choice: QuoteChoice;
	quote: (again: boolean) => Promise<IDataObject>;
	send: (fingerprint: string, requoted: boolean) => Promise<IDataObject>;
	explain?: (error: unknown) => Promise<unknown>;
}

/** A requote after QUOTE_STALE is checked against the Spending Limit again before the write is resent. */
export async function sendChargedWrite(
	ctx: IExecuteFunctions,
	run: WriteRun,
	itemIndex: number,
	request: ChargedRequest,
): Promise<{ result: IDataObject; quote?: IDataObject }> {
	const { choice, existing } = request;
	const attempt = async (fingerprint: string, requoted: boolean) => {
		const send = async () => await request.send(fingerprint, requoted);
		return await withRecovery(ctx, run, itemIndex, existing, send);
	};
	let quote: IDataObject | undefined;
	if (choice.quoteAutomatically) {
		const quoted = await outcomeOf(async () => await request.quote(false));
		if (!quoted.ok) {
			// Only a started report's quote answers this; an interview quote never does.
			if (!hasApiCondition(quoted.error, 'ANALYSIS_ALREADY_STARTED')) throw quoted.error;
			const from = 'ANALYSIS_ALREADY_STARTED';
			return { result: await recoverWrite(ctx, run, itemIndex, existing, from, quoted.error) };
		}
		quote = quoted.value;
	}
	const result = await chargedWrite(ctx, run, itemIndex, quote, request.what, async (reprice) => {
		try {
			if (!quote) return await attempt(choice.quoteFingerprint as string, false);
			return await onApiCondition(
				'QUOTE_STALE',
				async () => await attempt(String(quote?.fingerprint), false),
				async () => {
					quote = await request.quote(true);
					reprice(quote);
					return await attempt(String(quote.fingerprint), true);
				},
			);
		} catch (error) {
			throw request.explain ? await request.explain(error) : error;
		}
	});
	return { result, quote };
}
