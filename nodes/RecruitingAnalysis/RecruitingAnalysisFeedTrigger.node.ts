import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import {
	CURSOR_EXPIRED,
	CURSOR_INVALID,
	readLatestEvents,
	runFeedPoll,
	type FeedEvent,
	type FeedFilters,
	type FeedPage,
	type FeedPollArgs,
	type StartPosition,
} from './feed/cursor';
import { filtersCollection, optionsCollection } from './actions/common/descriptions';
import { recruitingAnalysisApiTest } from './methods/credentialTest';
import { besideWebhookTriggerProblem, webhookTriggersBeside } from './webhook/besideFeed';
import { apiErrorInfo, apiRequest } from './transport';
import { resolveBaseUrl } from './transport/environment';
import { eventsField, eventsSubtitle } from './events/eventTypes';
import { fetchEventResource, fetchResourceField } from './events/resource';

const FEED_STATE = 'feed';
const DEFAULT_MAX_EVENTS = 500;
const BUDGET_SHARE = 0.7;
const FALLBACK_BUDGET_MS = 60_000;
const MANUAL_MAX_PAGES = 50;

// n8n polls on every tick without waiting for the last (n8n-core activatePollTrigger): a tick meeting one is skipped.
const pollsInProgress = new Map<string, number>();

// The API refuses a cursor behind its retention with 410 and one it did not issue with 400 INVALID_CURSOR.
function refusedCursor(error: unknown) {
	const info = apiErrorInfo(error);
	if (info?.status === 410 || info?.code === 'EVENT_CURSOR_EXPIRED') return CURSOR_EXPIRED;
	if (info?.status === 400 && [info.code, info.reason].includes('INVALID_CURSOR'))
		return CURSOR_INVALID;
	return undefined;
}

function isTransient(error: unknown): boolean {
	const status = apiErrorInfo(error)?.status ?? Number((error as { httpCode?: unknown })?.httpCode);
	return status === 429 || (status >= 500 && status <= 599);
}

function filterId(ctx: IPollFunctions, field: 'reportId' | 'interviewId'): string | undefined {
	const value = ctx.getNodeParameter(`filters.${field}`, '');
	const id = typeof value === 'string' ? value.trim() : '';
	if (id.length > 100) {
		throw new NodeOperationError(ctx.getNode(), `Filter ${field} must be 1 to 100 characters`);
	}
	return id === '' ? undefined : id;
}

export class RecruitingAnalysisFeedTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Recruiting Analysis Feed Trigger',
		name: 'recruitingAnalysisFeedTrigger',
		icon: { light: 'file:recruitingAnalysis.svg', dark: 'file:recruitingAnalysis.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: eventsSubtitle('Events: '),
		description:
			'Polls the Recruiting Analysis event feed; use it when n8n cannot receive webhooks from the internet',
		defaults: { name: 'Recruiting Analysis Feed Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'recruitingAnalysisApi', required: true, testedBy: 'recruitingAnalysisApiTest' },
		],
		properties: [
			eventsField(
				'Event types that start the workflow. "All Events" also passes event types added to the API later. A change keeps the feed position unless it changes the type sent to the API (exactly one type selected, before or after); then a notice item says what was skipped.',
			),
			{
				displayName: 'Start From',
				name: 'startAt',
				type: 'options',
				default: 'now',
				description:
					'Where the first activation starts reading the feed, and where a position restarts after a change of filters or account (announced by a notice item)',
				options: [
					{
						name: 'Now',
						value: 'now',
						description: 'Only events published after the trigger starts',
					},
					{
						name: 'Oldest Retained Event',
						value: 'oldest',
						description: 'Every event still retained (up to 30 days), then new ones',
					},
				],
			},
			fetchResourceField,
			filtersCollection(
				[
					{
						displayName: 'Interview ID',
						name: 'interviewId',
						type: 'string',
						default: '',
						description: 'Only events about this interview attempt',
					},
					{
						displayName: 'Report ID',
						name: 'reportId',
						type: 'string',
						default: '',
						description: 'Only events about this report',
					},
				],
				'Changing a filter restarts the feed position (see Start From), announced by a notice item',
			),
			optionsCollection([
				{
					displayName: 'Latest Events in Manual Runs',
					name: 'manualCount',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 100 },
					default: 10,
					description:
						'How many of the latest events a manual test run shows; it never moves the saved position',
				},
				{
					displayName: 'Max Events per Poll',
					name: 'maxEventsPerPoll',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 5000 },
					default: DEFAULT_MAX_EVENTS,
					description: 'The rest of a backlog is read by the following polls, in order',
				},
				{
					displayName: 'Page Size',
					name: 'pageSize',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 100 },
					default: 100,
					description: 'Events asked for per request (1 to 100)',
				},
			]),
		],
	};

	methods = { credentialTest: { recruitingAnalysisApiTest } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const webhookTriggers = webhookTriggersBeside(this.getWorkflowStaticData('global'));
		if (webhookTriggers.length > 0 && this.getMode() !== 'manual') {
			const { message, description } = besideWebhookTriggerProblem(webhookTriggers);
			throw new NodeOperationError(this.getNode(), message, { description });
		}
		const filters: FeedFilters = {
			types: this.getNodeParameter('events', ['*']) as string[],
			reportId: filterId(this, 'reportId'),
			interviewId: filterId(this, 'interviewId'),
		};

		const fetchPage: FeedPollArgs['fetchPage'] = async ({ cursor, limit, type, apiTime }) => {
			const { reportId, interviewId } = filters;
			try {
				// The transport drops the parameters that are null or undefined.
				const page = await apiRequest.call(this, {
					method: 'GET',
					path: '/api/v1/events',
					qs: { limit, cursor, type, reportId, interviewId },
					apiTime,
				});
				return page as unknown as FeedPage;
			} catch (error) {
				const refused = cursor === null ? undefined : refusedCursor(error);
				if (refused) return refused;
				throw error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeApiError(this.getNode(), error as JsonObject);
			}
		};
		const enrich = (this.getNodeParameter('fetchResource', false) as boolean)
			? async (event: FeedEvent) => await fetchEventResource(this, event)
			: undefined;
		const startedAt = Date.now();
		// n8n 2.x tells a poll its time budget; n8n 1.x has no such call (and no budget): take the fallback there.
		const budget = (this as Partial<{ getPollBudgetMs: () => number }>).getPollBudgetMs;
		const budgetMs = typeof budget === 'function' ? budget.call(this) : FALLBACK_BUDGET_MS;
		const deadline = startedAt + budgetMs * BUDGET_SHARE;

		if (this.getMode() === 'manual') {
			// A test run shows the latest events and never reads or writes the saved position.
			const { events } = await readLatestEvents({
				filters,
				count: this.getNodeParameter('options.manualCount', 10) as number,
				now: Date.now,
				deadline,
				maxPages: MANUAL_MAX_PAGES,
				fetchPage,
			});
			const shown: INodeExecutionData[] = [];
			for (const event of events)
				shown.push({ json: { ...event, ...(await enrich?.(event)) } as IDataObject });
			return shown.length > 0 ? [shown] : null;
		}

		const node = this.getNode();
		const pollKey = `${this.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
		const runningSince = pollsInProgress.get(pollKey);
		if (runningSince !== undefined) {
			this.logger.warn(
				`Recruiting Analysis Feed Trigger skipped a poll: the previous poll (started ${Math.round((startedAt - runningSince) / 1000)} s ago) is still running; the next poll continues from its position`,
			);
			return null;
		}
		pollsInProgress.set(pollKey, startedAt);
		try {
			const credentials = await this.getCredentials('recruitingAnalysisApi');
			const resolved = resolveBaseUrl(credentials as Parameters<typeof resolveBaseUrl>[0]);
			if ('problem' in resolved) throw new NodeOperationError(node, resolved.problem);
			const staticData = this.getWorkflowStaticData('node');
			const result = await runFeedPoll({
				stored: staticData[FEED_STATE],
				filters,
				baseUrl: resolved.baseUrl,
				startAt: this.getNodeParameter('startAt', 'now') as StartPosition,
				maxEvents: this.getNodeParameter('options.maxEventsPerPoll', DEFAULT_MAX_EVENTS) as number,
				pageSize: this.getNodeParameter('options.pageSize', 100) as number,
				now: Date.now,
				deadline,
				fetchPage,
				enrich,
				isTransient,
			});
			if (result.failure !== undefined) {
				this.logger.warn(
					`Recruiting Analysis Feed Trigger stopped reading the feed after ${result.events.length} event(s): ${(result.failure as Error).message ?? String(result.failure)}; the next poll repeats the failed read`,
				);
			}
			// Stored with the items it covers: n8n persists static data as they go to an execution (docs/triggers.md).
			if (result.nextState) staticData[FEED_STATE] = result.nextState as unknown as IDataObject;
			const items = result.items.map((item) => ({ json: item as unknown as IDataObject }));
			return items.length > 0 ? [items] : null;
		} finally {
			pollsInProgress.delete(pollKey);
		}
	}
}
