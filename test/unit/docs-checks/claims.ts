/**
 * Which sentences state which constant (test/unit/docs-checks/stated.ts checks them). Each value is read from the
 * code that uses it: the node's descriptions, the triggers' and the sandbox's constants, or, for a constant its
 * module keeps private, the constant in its source.
 */
import type { IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';

import {
	PRODUCTION_BASE_URL,
	RecruitingAnalysisApi,
	SANDBOX_KEY_PREFIX,
} from '../../../credentials/RecruitingAnalysisApi.credentials';

import { spendingLimitField } from '../../../nodes/RecruitingAnalysis/actions/common/descriptions';
import { REPORT_PAGE_LIMIT } from '../../../nodes/RecruitingAnalysis/engine/capacity';
import {
	MAX_PAGE_SIZE,
	RESOURCE_READ_CONCURRENCY,
	RETENTION_MS,
	SEEK_PAGES_PER_POLL,
} from '../../../nodes/RecruitingAnalysis/feed/cursor';
import {
	IN_FLIGHT_LIMIT_MS,
	MAX_DEDUPE_CAPACITY,
	MAX_PROCESS_IDS,
} from '../../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	MAX_SECRET_SCOPES,
	SECRET_REUSE_MS,
} from '../../../nodes/RecruitingAnalysis/webhook/secrets';
import {
	DEFAULT_TOLERANCE_SECONDS,
	MIN_SECRET_BYTES,
} from '../../../nodes/RecruitingAnalysis/webhook/verify';
import { spendingLimitOf } from '../../../nodes/RecruitingAnalysis/writes/spending';
import { ANALYSIS_CREDIT_UNITS } from '../../../sandbox/src/analyses';
import { INTERVIEW_CREDIT_UNITS } from '../../../sandbox/src/interviews';
import { CREDIT_SCALE } from '../../../sandbox/src/quotes';
import { N8N_LINES } from '../../../scripts/n8n-host/versions';
import { ROOT } from './repository';
import { sourceConstant, type Claim } from './stated';

const FEED_TRIGGER = 'nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node.ts';

/** The Spending Limit the code treats as "no limit": 0 when an item whose limit is 0 gets none. */
function noLimitValue(): number {
	const item = {
		getNodeParameter: (name: string) => (name === 'spendingLimit' ? 0 : {}),
		getNode: () => ({ name: 'docs check' }),
	} as unknown as IExecuteFunctions;
	return spendingLimitOf(item, 0) === undefined ? 0 : Number.NaN;
}

export function codeClaims(): Claim[] {
	const analysisCredits = ANALYSIS_CREDIT_UNITS / CREDIT_SCALE;
	const interviewCredits = INTERVIEW_CREDIT_UNITS / CREDIT_SCALE;
	const budgetShare = sourceConstant(ROOT, FEED_TRIGGER, 'BUDGET_SHARE');
	const fallbackSeconds = sourceConstant(ROOT, FEED_TRIGGER, 'FALLBACK_BUDGET_MS') / 1000;
	const manualPages = sourceConstant(ROOT, FEED_TRIGGER, 'MANUAL_MAX_PAGES');
	const limitDefault = spendingLimitField.default as number;
	const environment = new RecruitingAnalysisApi().properties.find((p) => p.name === 'environment')!;
	const defaultEnvironment = (environment.options as INodePropertyOptions[]).find(
		(o) => o.value === environment.default,
	)!.name;
	return [
		{
			rule: "the credential's default environment",
			pattern: /\*(\w+)\* is the default environment/,
			expected: [defaultEnvironment],
			statedIn: ['README.md'],
		},
		{
			rule: "the Production environment's base URL",
			pattern: /its base URL is a placeholder, `([^`]+)`|\(Production: `([^`]+)`\)/,
			expected: [PRODUCTION_BASE_URL],
			statedIn: ['README.md', 'docs/compatibility.md'],
		},
		{
			rule: 'sandbox keys start with the prefix the credential checks',
			pattern: /Sandbox keys start with `([^`]+)`/,
			expected: [SANDBOX_KEY_PREFIX],
			statedIn: ['README.md'],
		},
		{
			rule: 'the n8n versions proven are the ones the tests install',
			pattern: /n8n \*\*(\d[\d.]*)\*\*(?: \(Node \d+\))? and \*\*(\d[\d.]*)\*\*/,
			expected: [N8N_LINES['2'].version, N8N_LINES['1'].version],
			statedIn: ['README.md', 'docs/install.md'],
		},
		{
			rule: "the Dockerfile's n8n image is the n8n 2.x version the tests install",
			pattern: /FROM docker\.n8n\.io\/n8nio\/n8n:(\S+)/,
			expected: [N8N_LINES['2'].version],
			statedIn: ['README.md', 'docs/install.md'],
		},
		{
			rule: "the Spending Limit's default",
			pattern: /Spending Limit's default is \**(\d+) credits/,
			expected: [limitDefault],
			statedIn: ['README.md', 'docs/output.md'],
		},
		{
			rule: 'a Spending Limit of 0 means no limit',
			pattern: /Spending Limit of (\d+) means no limit|(\d+) is no limit/,
			expected: [noLimitValue()],
			statedIn: ['README.md', 'docs/output.md'],
		},
		{
			rule: 'sandbox price of an analysis (credits)',
			pattern: /an analysis costs \**(\d+(?:\.\d+)?) credits?/,
			expected: [analysisCredits],
			statedIn: ['README.md'],
		},
		{
			rule: 'sandbox price of an interview (credits)',
			pattern:
				/and an interview \**(\d+(?:\.\d+)?)|sandbox's (\d+(?:\.\d+)?) credits per interview/,
			expected: [interviewCredits],
			statedIn: ['README.md'],
		},
		{
			rule: "sandbox quotes' creditUnits and creditScale",
			pattern: /`creditUnits` (\d+) and (\d+) on a `creditScale` of (\d+)/,
			expected: [ANALYSIS_CREDIT_UNITS, INTERVIEW_CREDIT_UNITS, CREDIT_SCALE],
			statedIn: ['README.md'],
		},
		{
			rule: "the sandbox's prices in its own README (units and scale)",
			pattern: /Prices: analysis (\d+) units, interview (\d+) units \([^)]*\), `creditScale` (\d+)/,
			expected: [ANALYSIS_CREDIT_UNITS, INTERVIEW_CREDIT_UNITS, CREDIT_SCALE],
			statedIn: ['sandbox/README.md'],
		},
		{
			rule: "feed trigger: a scheduled poll's resource reads at a time",
			pattern: /scheduled poll runs the reads (\w+) at a time/,
			expected: [RESOURCE_READ_CONCURRENCY],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'feed trigger: Start From Now walks at most N pages (N events) per poll',
			pattern: /at most (\d+) pages \(([\d,]+) events\) per poll/,
			expected: [SEEK_PAGES_PER_POLL, SEEK_PAGES_PER_POLL * MAX_PAGE_SIZE],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'feed trigger: a manual run finds the latest events among the first N',
			pattern: /found among the first ([\d,]+) retained events/,
			expected: [manualPages * MAX_PAGE_SIZE],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: "feed trigger: share of n8n's poll budget",
			pattern: /or (\d+) % of n8n's poll time budget/,
			expected: [budgetShare * 100],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'feed trigger: the 1.x fallback (seconds and share)',
			pattern: /stops paging after (\d+) s \((\d+) % of a one-minute fallback\)/,
			expected: [Math.round(fallbackSeconds * budgetShare), budgetShare * 100],
			statedIn: ['docs/compatibility.md'],
		},
		{
			rule: 'event retention (days)',
			pattern:
				/Read on the next poll \((\d+)-day retention\)|\(everything still retained, up to (\d+) days\)/,
			expected: [RETENTION_MS / 86_400_000],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: at most N remembered event ids',
			pattern: /at most ([\d,]+) ids, saved whole|newer events \(at most ([\d,]+):/,
			expected: [MAX_DEDUPE_CAPACITY],
			statedIn: ['README.md', 'docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: the remembered ids last N minutes at 10 events a second',
			pattern: /at most [\d,]+: about (\d+) minutes at 10 events a second/,
			expected: [Math.round(MAX_DEDUPE_CAPACITY / 10 / 60)],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: ids kept per process',
			pattern: /at most ([\d,]+) ids per process/,
			expected: [MAX_PROCESS_IDS],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: signing secrets kept for N workflow nodes',
			pattern: /secrets of at most ([\d,]+) workflow nodes/,
			expected: [MAX_SECRET_SCOPES],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: signing secrets kept for N seconds',
			pattern:
				/for up to (\d+) seconds per workflow|for at most those (\d+) seconds|for at most (\d+) seconds \(`webhook\/secrets\.ts`\)|refused at the latest (\d+) seconds later|in memory for up to (\d+) seconds|refused within (\d+) seconds/,
			expected: [SECRET_REUSE_MS / 1000],
			statedIn: ['docs/triggers.md', 'docs/security.md'],
		},
		{
			rule: 'webhook trigger: an id in flight for at most N minutes',
			pattern: /stays in flight for at most (\w+) minutes/,
			expected: [IN_FLIGHT_LIMIT_MS / 60_000],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'webhook trigger: timestamp tolerance (minutes)',
			pattern: /rejects timestamps more than (\w+) minutes in the past or future/,
			expected: [DEFAULT_TOLERANCE_SECONDS / 60],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'signing secret: base64 of at least N bytes',
			pattern: /base64 of at least (\d+) bytes/,
			expected: [MIN_SECRET_BYTES],
			statedIn: ['docs/triggers.md'],
		},
		{
			rule: 'waiting reports read N a request',
			pattern: /The pending reports are read together, (\d+) a request/,
			expected: [REPORT_PAGE_LIMIT],
			statedIn: ['docs/operations.md'],
		},
	];
}
