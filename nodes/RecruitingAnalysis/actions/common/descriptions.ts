import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { asObject } from '../../transport/errors';

export const ACTION_NODE_VERSION = 1;

// One selector per resource: n8n lists each operation's action in the nodes panel from it.
export function operationSelector(
	resource: string,
	defaultOperation: string,
	options: INodePropertyOptions[],
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}

type Show = Record<string, Array<string | boolean>>;

function shownWhen(show: Show) {
	return Object.keys(show).length > 0 ? { displayOptions: { show } } : {};
}

const ID_RULE = {
	type: 'regex',
	properties: {
		regex: '^\\S.{0,99}$',
		errorMessage: 'An ID is 1 to 100 characters, without leading spaces',
	},
};

const ID_MODES = {
	jobDescriptionId: [
		'jd_...',
		'searchJobDescriptions',
		'Type to filter by title, company or location. Jobs that are not ACTIVE are marked and refused for uploads.',
	],
	reportId: [
		'rpt_...',
		'searchReports',
		'Most recent first. Type to filter by candidate, job or ID.',
	],
	interviewId: [
		'int_...',
		'searchInterviews',
		'Most recent first. Type to filter by ID, report or state.',
	],
};

function idLocator(
	name: keyof typeof ID_MODES,
	{ displayName, description }: { displayName: string; description: string },
	show: Show = {},
): INodeProperties[] {
	const [placeholder, searchListMethod, hint] = ID_MODES[name];
	return [
		{
			displayName,
			name,
			type: 'resourceLocator',
			required: true,
			default: { mode: 'list', value: '' },
			description,
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					hint,
					typeOptions: { searchListMethod, searchable: true },
				},
				{ displayName: 'By ID', name: 'id', type: 'string', placeholder, validation: [ID_RULE] },
			],
			...shownWhen(show),
		},
	];
}

export const savedJobLocator = (labels: Parameters<typeof idLocator>[1], show: Show = {}) =>
	idLocator('jobDescriptionId', labels, show);

export const reportLocator = (description = 'ID of the report (starts with rpt_)') =>
	idLocator('reportId', { displayName: 'Report', description });

export const interviewLocator = (
	description = 'ID of the interview attempt (starts with int_), not the report ID',
) => idLocator('interviewId', { displayName: 'Interview', description });

export const binaryPropertyField: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	required: true,
	default: 'data',
	hint: 'The name of the input binary field holding the resume (PDF or DOCX, up to 10 MB)',
	description: 'Name of the binary property of the input item that contains the resume file',
};

export const jobDescriptionFields: INodeProperties[] = [
	{
		displayName: 'Job Description Source',
		name: 'jobDescriptionSource',
		type: 'options',
		options: [
			{ name: 'Inline Text', value: 'text', description: 'Paste or map the job description text' },
			{
				name: 'Saved Job',
				value: 'existing',
				description: 'Use a job description saved in the application',
			},
		],
		default: 'existing',
		description: 'Where the job description for this analysis comes from',
	},
	...savedJobLocator(
		{
			displayName: 'Saved Job',
			description:
				'The saved job description the resume is analyzed against (only ACTIVE jobs accept resumes)',
		},
		{ jobDescriptionSource: ['existing'] },
	),
	{
		displayName: 'Job Description Text',
		name: 'jobDescriptionText',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 5 },
		description: 'Full text of the job description',
		displayOptions: { show: { jobDescriptionSource: ['text'] } },
	},
];

export const expectedRevisionOption: INodeProperties = {
	displayName: 'Expected Revision',
	name: 'expectedRevision',
	type: 'string',
	default: '',
	description:
		'Revision of the saved job the resume must be analyzed against. When set, the request fails with JD_REVISION_CHANGED if the job was changed since.',
	displayOptions: { show: { '/jobDescriptionSource': ['existing'] } },
};

export const externalReferenceOptions: INodeProperties[] = [
	{
		displayName: 'External Reference ID',
		name: 'externalReferenceId',
		type: 'string',
		default: '',
		description:
			'Case-sensitive application ID in your recruiting system (prefer an application ID over personal information). Set together with External Reference Source.',
	},
	{
		displayName: 'External Reference Source',
		name: 'externalReferenceSource',
		type: 'string',
		default: '',
		placeholder: 'my-ats',
		description:
			'Slug of your recruiting system, for example "greenhouse". Set together with External Reference ID.',
	},
];

// 10 credits, so that a first try or a runaway loop costs at most that (docs/output.md, Spending limit).
export const DEFAULT_SPENDING_LIMIT = 10;

export const spendingLimitField: INodeProperties = {
	displayName: 'Spending Limit (Credits)',
	name: 'spendingLimit',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: DEFAULT_SPENDING_LIMIT,
	hint: 'Counts the whole execution, across every Recruiting Analysis node in it; a sub-workflow (Execute Workflow) counts its own from 0. 0 = no limit.',
	description:
		"The most credits the whole execution may spend on analyses and interviews, counted across every Recruiting Analysis node of the execution (not only this one), its items, batches and Wait nodes, at the price each write is sent with (a write quoted again is checked again). A write that would take the execution's total past it is not sent: that item fails, saying what was spent and what it costs. 0 is no limit. Needs Quote Automatically on. If n8n's process is killed mid-node the total is lost: running the workflow again recovers what was done at no charge and may spend up to this limit again on the rest.",
};

export function chargeNotice(unit: string): INodeProperties {
	const text = `Charges credits: the quoted price of each ${unit} (Get Quote shows it). A run stops before the execution's total passes the Spending Limit below (${DEFAULT_SPENDING_LIMIT} credits unless changed).`;
	return specNotice('chargeNotice', text);
}

export function emailNotice(whom: 'the candidate' | 'each candidate', show: Show = {}) {
	const text = `Running this node emails ${whom}, also when you click Execute step${show.delivery ? ' (Delivery: Private Link sends no email)' : ''}.`;
	return { ...specNotice('emailNotice', text), ...shownWhen(show) };
}

export const writeOptions: INodeProperties[] = [
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		description:
			'Your own key for this item\'s write, usually an expression that names the item, such as the application ID (1 to 128 characters: letters, digits, ".", "_", ":" and "-"; each item needs its own). Leave empty and the node derives the key from what the write is (file, job, report, quote, address), so a retry or a re-run on the same input never charges twice.',
	},
	{
		displayName: 'New Attempt Label',
		name: 'attemptLabel',
		type: 'string',
		default: '',
		placeholder: 'second-try',
		description:
			'Makes a deliberate new attempt of a write that already happened (for example after a failed report, or another resend): a word that goes into the idempotency key. Leave empty to get back what was already created when the same input runs again.',
	},
];

export const resumeFileOptions: INodeProperties[] = [
	...externalReferenceOptions,
	{
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		description: 'Overrides the file name of the binary data. Must end in .pdf or .docx.',
	},
	...writeOptions,
];

// Options and Filters list their fields sorted, as n8n's lint rules expect.
function collection(label: 'Option' | 'Filter', fields: INodeProperties[], description?: string) {
	return {
		displayName: `${label}s`,
		name: `${label.toLowerCase()}s`,
		type: 'collection',
		placeholder: `Add ${label}`,
		default: {},
		...(description === undefined ? {} : { description }),
		options: [...fields].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	} satisfies INodeProperties;
}

export const optionsCollection = (options: INodeProperties[]) => collection('Option', options);

export const filtersCollection = (filters: INodeProperties[], description?: string) =>
	collection('Filter', filters, description);

export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 20 },
	default: 20,
	description:
		'How many input items are processed at the same time. With Wait for Completion, an item waits without holding its place: the waits of all items are shared.',
};

export function simplifyReportsField(when: string): INodeProperties {
	return {
		...simplifyField,
		default: true,
		description: `Whether to output one flat item per resume ${when} with the fields a recruiter uses first: candidateName, currentRole, score, scoreMinimum, scoreMaximum, summary, recommendation, status, needsReview (status "requires_action": a human review is needed), reportId and fileName. Turn off for the API's own objects.`,
	};
}

export const waitForCompletionField: INodeProperties = {
	displayName: 'Wait for Completion',
	name: 'waitForCompletion',
	type: 'boolean',
	default: true,
	description:
		'Whether to wait until the analysis has finished and output its score. Off: the node outputs the started analysis at once, without a score.',
};

export function waitDetailOptions(): INodeProperties[] {
	return waitForCompletionOptions
		.filter((o) => o.name !== 'waitForCompletion')
		.map((o) => ({
			...o,
			displayOptions: {
				...o.displayOptions,
				show: { ...o.displayOptions?.show, '/waitForCompletion': [true] },
			},
		}));
}

export const waitForCompletionOptions: INodeProperties[] = [
	{
		displayName: 'Output After Waiting',
		name: 'waitOutput',
		type: 'options',
		displayOptions: { hide: { '/simplify': [true] } },
		options: [
			{
				name: 'Report Result',
				value: 'result',
				description: 'The detailed evidence result (needs the reports:read scope)',
			},
			{
				name: 'Report Result (Simplified)',
				value: 'simplifiedResult',
				description: 'Only score, scale, summary, recommendation and limitations',
			},
			{
				name: 'Report Summary',
				value: 'summary',
				description: 'The report summary with score, summary and reasoning',
			},
		],
		default: 'summary',
		description: 'What to output once the analysis has finished',
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to poll the report status (with backoff) until the analysis finishes or the timeout is reached. Needs the reports:read scope.',
	},
	{
		displayName: 'Wait Timeout (Seconds)',
		name: 'waitTimeout',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3600 },
		default: 300,
		description:
			'How long to wait at most. On timeout the last status is output with "timedOut": true.',
	},
];

export const candidateEmailField: INodeProperties = {
	displayName: 'Candidate Email',
	name: 'candidateEmail',
	type: 'string',
	placeholder: 'name@email.com',
	required: true,
	default: '',
	description:
		'Email address of the candidate. The quote and the invitation must use the same address.',
};

export const deliveryField: INodeProperties = {
	displayName: 'Delivery',
	name: 'delivery',
	type: 'options',
	options: [
		{
			name: 'Email',
			value: 'email',
			description: 'The service emails the invitation to the candidate',
		},
		{
			name: 'Private Link',
			value: 'privateLink',
			description:
				'No email is sent; the output contains the invitation token (a private credential) that you deliver as a link',
		},
	],
	default: 'email',
	description: 'How the invitation reaches the candidate',
};

export function quoteFields(what: string): INodeProperties[] {
	return [
		{
			displayName: 'Quote Automatically',
			name: 'quoteAutomatically',
			type: 'boolean',
			default: true,
			description: `Whether to request a fresh quote right before the ${what}. Turn off to pass the fingerprint of a quote you already approved.`,
		},
		{
			displayName: 'Quote Fingerprint',
			name: 'quoteFingerprint',
			type: 'string',
			required: true,
			default: '',
			description:
				'The fingerprint of the current quote, copied unchanged (64 lowercase hexadecimal characters)',
			displayOptions: { show: { quoteAutomatically: [false] } },
		},
	];
}

export const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

export const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

export const schemaVersionOption: INodeProperties = {
	displayName: 'Schema Version',
	name: 'schemaVersion',
	type: 'string',
	default: '1',
	description: 'Version of the result payload schema. Only 1 is supported.',
};

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

export function specNotice(name: string, text: string): INodeProperties {
	return { displayName: text, name, type: 'notice', default: '' };
}

export const interviewAxesNotice = specNotice(
	'interviewAxesNotice',
	'Lifecycle, preparation, evaluation and email delivery are independent: a completed interview does not mean its evaluation is ready, and "sent" means accepted by the mail provider, not delivered',
);

export const unmeasuredNotice = specNotice(
	'unmeasuredNotice',
	'A null score or measurement means unmeasured, not zero. Read the score scale and the limitations before showing a score.',
);

export const humanReviewNotice = specNotice(
	'humanReviewNotice',
	'A report in status "requires_action" needs a human review in the application: do not resubmit it to bypass the review',
);

// A null score means unmeasured, never zero: it stays null.
const resultFields = (full: IDataObject, names: string[]): IDataObject =>
	Object.fromEntries(names.map((name) => [name, (full.result as IDataObject)?.[name] ?? null]));

export function simplifyReportResult(full: IDataObject): IDataObject {
	return {
		reportId: full.reportId,
		attemptId: full.attemptId ?? null,
		status: full.status,
		resultRevision: full.resultRevision ?? null,
		...resultFields(full, [
			'score',
			'scoreScale',
			'summary',
			'humanReviewRecommendation',
			'limitations',
		]),
	};
}

export function simplifyInterviewResult(full: IDataObject): IDataObject {
	return {
		interviewId: full.id,
		reportId: full.reportId,
		lifecycle: full.lifecycle,
		evaluation: full.evaluation,
		resultRevision: full.resultRevision ?? null,
		...resultFields(full, ['decision', 'recommendation', 'summary', 'scores', 'limitations']),
	};
}

const JOB_FIELDS = ['id', 'title', 'company', 'location', 'status', 'revision', 'updatedAt'];

export function simplifyJobDescription(job: IDataObject): IDataObject {
	return Object.fromEntries(JOB_FIELDS.map((name) => [name, job[name]]));
}

export function simplifyReportSummary(report: IDataObject): IDataObject {
	const { externalReference } = report;
	const result = asObject(report.result);
	return {
		id: report.id,
		createdAt: report.createdAt,
		status: report.status,
		candidateName: asObject(report.candidate)?.name ?? null,
		jobTitle: asObject(report.jobDescription)?.title ?? null,
		score: result?.score ?? null,
		summary: result?.summary ?? null,
		...(externalReference === undefined ? {} : { externalReference }),
	};
}

// status is always the report's own; a batch item's admission state goes beside it as analysisState.
export function simplifyReport(facts: {
	reportId: string | null;
	fileName?: unknown;
	summary?: IDataObject | null;
	result?: IDataObject | null;
	status?: IDataObject | null;
}): IDataObject {
	const summary = asObject(facts.summary);
	const full = asObject(facts.result);
	const result = asObject(full?.result);
	const summaryResult = asObject(summary?.result);
	const candidate = asObject(summary?.candidate);
	const scale = asObject(result?.scoreScale);
	const job = asObject(summary?.jobDescription);
	const status = (full?.status ?? summary?.status ?? facts.status?.status ?? null) as string | null;
	const pick = (...values: unknown[]) =>
		values.find((value) => value !== undefined && value !== null) ?? null;
	return {
		candidateName: pick(candidate?.name),
		currentRole: pick(candidate?.currentRole),
		score: pick(result?.score, summaryResult?.score),
		scoreMinimum: pick(scale?.minimum),
		scoreMaximum: pick(scale?.maximum),
		summary: pick(result?.summary, summaryResult?.summary),
		recommendation: pick(result?.humanReviewRecommendation),
		status,
		needsReview: status === 'requires_action',
		reportId: facts.reportId,
		fileName: typeof facts.fileName === 'string' ? facts.fileName : null,
		code: pick(full?.code, summary?.code, facts.status?.code),
		scoreReasoning: pick(result?.scoreReasoning, summaryResult?.scoreReasoning),
		limitations: pick(result?.limitations),
		jobTitle: pick(job?.title),
		attemptId: pick(full?.attemptId, summary?.attemptId, facts.status?.attemptId),
		resultRevision: pick(full?.resultRevision),
	};
}
