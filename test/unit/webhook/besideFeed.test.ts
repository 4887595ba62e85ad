/**
 * The mark a webhook trigger leaves in its workflow's global static data (webhook/besideFeed.ts), which the Feed
 * Trigger reads to refuse polling beside it: written once per node, removed with the webhook, damage tolerated.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import {
	besideWebhookTriggerProblem,
	markWebhookTrigger,
	unmarkWebhookTrigger,
	webhookTriggersBeside,
	WEBHOOK_TRIGGERS_KEY,
} from '../../../nodes/RecruitingAnalysis/webhook/besideFeed';

const node = (name: string) => ({ name }) as INode;

describe('the webhook trigger mark', () => {
	it('is kept by node name under the key the Feed Trigger reads, beside other marks', () => {
		const global: IDataObject = { other: 1 };
		markWebhookTrigger(global, node('Hook A'));
		markWebhookTrigger(global, node('Hook B'));
		expect(global).toEqual({
			other: 1,
			recruitingAnalysisWebhookTriggers: { 'Hook A': true, 'Hook B': true },
		});
		expect(webhookTriggersBeside(global)).toEqual(['Hook A', 'Hook B']);
	});

	it('is written only when it changes (the static data is saved only when changed)', () => {
		const global: IDataObject = {};
		markWebhookTrigger(global, node('Hook A'));
		const written = global[WEBHOOK_TRIGGERS_KEY];
		markWebhookTrigger(global, node('Hook A'));
		expect(global[WEBHOOK_TRIGGERS_KEY]).toBe(written);
	});

	it('is removed with its webhook; the key goes when no mark is left', () => {
		const global: IDataObject = {};
		markWebhookTrigger(global, node('Hook A'));
		markWebhookTrigger(global, node('Hook B'));
		unmarkWebhookTrigger(global, node('Hook A'));
		expect(global).toEqual({ [WEBHOOK_TRIGGERS_KEY]: { 'Hook B': true } });
		const kept = global[WEBHOOK_TRIGGERS_KEY];
		unmarkWebhookTrigger(global, node('Hook C'));
		expect(global[WEBHOOK_TRIGGERS_KEY]).toBe(kept);
		unmarkWebhookTrigger(global, node('Hook B'));
		expect(global).toEqual({});
		unmarkWebhookTrigger(global, node('Hook B'));
		expect(global).toEqual({});
	});

	it('damaged data counts as no mark, and a mark that is not true names no trigger', () => {
		for (const damaged of [null, 'Hook A', ['Hook A'], 3]) {
			const global: IDataObject = { [WEBHOOK_TRIGGERS_KEY]: damaged };
			expect(webhookTriggersBeside(global)).toEqual([]);
			markWebhookTrigger(global, node('Hook A'));
			expect(global[WEBHOOK_TRIGGERS_KEY]).toEqual({ 'Hook A': true });
		}
		expect(
			webhookTriggersBeside({ [WEBHOOK_TRIGGERS_KEY]: { 'Hook A': 'yes', 'Hook B': true } }),
		).toEqual(['Hook B']);
		const stale: IDataObject = { [WEBHOOK_TRIGGERS_KEY]: { 'Hook A': false } };
		markWebhookTrigger(stale, node('Hook A'));
		expect(stale[WEBHOOK_TRIGGERS_KEY]).toEqual({ 'Hook A': true });
	});

	it("the Feed Trigger's refusal names every webhook trigger and says what to do", () => {
		expect(besideWebhookTriggerProblem(['Hook A', 'Hook B'])).toEqual({
			message:
				'This workflow also holds the Recruiting Analysis Trigger "Hook A", "Hook B"; the Feed Trigger refuses to run in the same workflow',
			description:
				"n8n saves a workflow's static data whole, without compare-and-set: every webhook request writes back the feed position it loaded, and every poll writes back the remembered event ids as they were at activation, so each trigger overwrites the other (events handed over twice, duplicates started again). Put the Feed Trigger and the webhook trigger in two workflows; both can call the same sub-workflow (Execute Workflow), and the PostgreSQL step of examples/webhook-each-event-once-postgres.json lets each event id through once across both.",
		});
	});
});
