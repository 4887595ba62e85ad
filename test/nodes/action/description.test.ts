/**
 * The action node's description: the operation selectors and the operation modules agree, every parameter
 * is scoped to its resource and operation, and the n8n conventions of a community node hold.
 */
import {
	NodeHelpers,
	Workflow,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeTypes,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { resources } from '../../../nodes/RecruitingAnalysis/actions/router';

const description = new RecruitingAnalysis().description;
const properties = description.properties;

function operationSelector(resource: string): INodeProperties {
	const selector = properties.find(
		(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
	);
	if (!selector) throw new Error(`no operation selector for ${resource}`);
	return selector;
}

const EXPECTED: Record<string, string[]> = {
	jobDescription: ['get', 'getMany'],
	upload: ['uploadResume', 'prepare', 'refreshUrl', 'cancel', 'uploadMany', 'getBatch'],
	analysis: [
		'analyzeResume',
		'analyzeMany',
		'getQuote',
		'start',
		'getQuotes',
		'startMany',
		'getBatch',
	],
	report: ['get', 'getMany', 'getStatus', 'getResult'],
	interview: [
		'getQuote',
		'invite',
		'resend',
		'reinterview',
		'getQuotes',
		'inviteMany',
		'getBatch',
		'get',
		'getMany',
		'getStatus',
		'getResult',
	],
	event: ['getMany'],
};

describe('RecruitingAnalysis node description', () => {
	it('has the agreed identity: name, credential, icons, tool use, subtitle', () => {
		expect(description.name).toBe('recruitingAnalysis');
		expect(description.usableAsTool).toBe(true);
		expect(description.credentials).toEqual([
			{ name: 'recruitingAnalysisApi', required: true, testedBy: 'recruitingAnalysisApiTest' },
		]);
		expect(description.icon).toEqual({
			light: 'file:recruitingAnalysis.svg',
			dark: 'file:recruitingAnalysis.dark.svg',
		});
	});

	it("the canvas subtitle is the operation in words (its action), evaluated by n8n's expression engine", () => {
		const subtitle = (resource: string, operation: string): unknown => {
			const nodeTypes: INodeTypes = {
				getByName: () => new RecruitingAnalysis(),
				getByNameAndVersion: () => new RecruitingAnalysis(),
				getKnownTypes: () => ({}),
			};
			const node = {
				id: 'n',
				name: 'n',
				type: 'recruitingAnalysis',
				typeVersion: 1,
				position: [0, 0] as [number, number],
				parameters: { resource, operation },
			};
			const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
			return workflow.expression.getSimpleParameterValue(
				node,
				description.subtitle as string,
				'internal',
				{},
			);
		};
		expect(subtitle('analysis', 'analyzeResume')).toBe('Analyze a resume');
		expect(subtitle('interview', 'invite')).toBe('Invite a candidate');
		const actions = Object.keys(EXPECTED).flatMap((resource) =>
			(operationSelector(resource).options as INodePropertyOptions[]).map((o) => [
				resource,
				String(o.value),
				o.action,
			]),
		);
		// The action without its price in parentheses (the price is for the model: actions/common/toolMode.ts).
		for (const [resource, operation, action] of actions)
			expect(subtitle(resource!, operation!)).toBe(String(action).replace(/ \(.*\)$/, ''));
	});

	it('offers the six resources in one selector, a free read by default', () => {
		expect(properties.filter((p) => p.name === 'resource')).toHaveLength(1);
		const resource = properties.find((p) => p.name === 'resource');
		const values = (resource?.options as INodePropertyOptions[]).map((o) => o.value).sort();
		expect(values).toEqual([
			'analysis',
			'event',
			'interview',
			'jobDescription',
			'report',
			'upload',
		]);
		expect(resource?.default).toBe('report');
	});

	it.each(Object.keys(EXPECTED))(
		'resource %s: the selector offers exactly its operation modules, and they are the expected operations',
		(resource) => {
			const selector = operationSelector(resource);
			const offered = (selector.options as INodePropertyOptions[]).map((o) => String(o.value));
			expect([...offered].sort()).toEqual([...EXPECTED[resource]].sort());
			expect(Object.keys(resources[resource]).sort()).toEqual([...EXPECTED[resource]].sort());
			for (const option of selector.options as INodePropertyOptions[]) {
				expect(option.action).toEqual(expect.any(String));
				expect(option.description).toEqual(expect.any(String));
			}
		},
	);

	it('puts Analyze Many and Analyze Resume first (options are alphabetical) and makes Analyze Resume the default', () => {
		const selector = operationSelector('analysis');
		expect((selector.options as INodePropertyOptions[]).slice(0, 2).map((o) => o.value)).toEqual([
			'analyzeMany',
			'analyzeResume',
		]);
		expect(selector.default).toBe('analyzeResume');
	});

	it('scopes every operation parameter to one resource and its operation', () => {
		for (const [resource, operations] of Object.entries(resources)) {
			for (const [operation, module] of Object.entries(operations)) {
				expect(module.description.length).toBeGreaterThan(0);
				for (const parameter of module.description) {
					expect(parameter.displayOptions?.show?.resource).toEqual([resource]);
					expect(parameter.displayOptions?.show?.operation).toEqual([operation]);
				}
			}
		}
	});

	it('sorts the options of every options/collection parameter alphabetically (n8n lint convention)', () => {
		const unsorted: string[] = [];
		const check = (parameter: INodeProperties, where: string) => {
			if (parameter.name === 'operation' || parameter.name === 'resource') return;
			if (parameter.type === 'options' && Array.isArray(parameter.options)) {
				const names = (parameter.options as INodePropertyOptions[]).map((o) => o.name);
				if (names.join('|') !== [...names].sort((a, b) => a.localeCompare(b)).join('|'))
					unsorted.push(`${where}.${parameter.name}`);
			}
			if (parameter.type === 'collection' && Array.isArray(parameter.options)) {
				const inner = parameter.options as INodeProperties[];
				const names = inner.map((o) => o.displayName);
				if (names.join('|') !== [...names].sort((a, b) => a.localeCompare(b)).join('|'))
					unsorted.push(`${where}.${parameter.name}`);
				inner.forEach((o) => check(o, `${where}.${parameter.name}`));
			}
		};
		for (const [resource, operations] of Object.entries(resources)) {
			for (const [operation, module] of Object.entries(operations)) {
				module.description.forEach((p) => check(p, `${resource}.${operation}`));
			}
		}
		expect(unsorted).toEqual([]);
	});

	it('marks batch operations as batch and every other operation as per item', () => {
		const batch = Object.entries(resources).flatMap(([resource, ops]) =>
			Object.entries(ops)
				.filter(([, module]) => module.mode === 'batch')
				.map(([operation]) => `${resource}.${operation}`),
		);
		expect(batch.sort()).toEqual(
			[
				'analysis.analyzeMany',
				'analysis.getQuotes',
				'analysis.startMany',
				'interview.getQuotes',
				'interview.inviteMany',
				'upload.uploadMany',
			].sort(),
		);
	});

	/** The top-level properties shown for an operation, as n8n decides (its display rules, the fields' defaults). */
	const shownFor = (resource: string, operation: string, values: Record<string, unknown> = {}) => {
		const node = { typeVersion: 1 } as never;
		// The node's parameters as the editor holds them: what was set, and every other field's default.
		const parameters = NodeHelpers.getNodeParameters(
			properties,
			{ resource, operation, ...values } as never,
			true,
			false,
			node,
			description,
		)!;
		return properties.filter((p) => NodeHelpers.displayParameter(parameters, p, node, description));
	};
	const CHARGED = [
		['analysis', 'analyzeResume', 'analysis'],
		['analysis', 'analyzeMany', 'analysis'],
		['analysis', 'start', 'analysis'],
		['analysis', 'startMany', 'analysis'],
		['interview', 'invite', 'interview'],
		['interview', 'inviteMany', 'interview'],
		['interview', 'reinterview', 'interview'],
	];

	it.each(CHARGED)(
		'%s > %s: one line says what a run charges, above a top-level Spending Limit (Credits) of 10',
		(resource, operation, unit) => {
			const shown = shownFor(resource, operation);
			const notices = shown.filter((p) => p.type === 'notice').map((p) => p.displayName);
			expect(notices).toEqual(
				expect.arrayContaining([
					`Charges credits: the quoted price of each ${unit} (Get Quote shows it). A run stops before the execution's total passes the Spending Limit below (10 credits unless changed).`,
				]),
			);
			const limit = shown.filter((p) => p.name === 'spendingLimit');
			expect(limit.map((p) => [p.displayName, p.type, p.default])).toEqual([
				['Spending Limit (Credits)', 'number', 10],
			]);
			expect(limit[0].hint).toMatch(/whole execution.*every Recruiting Analysis node/);
			expect(limit[0].hint).toMatch(/sub-workflow \(Execute Workflow\) counts its own from 0/);
			const inOptions = shown
				.filter((p) => p.type === 'collection')
				.flatMap((p) => (p.options as INodeProperties[]).map((o) => o.name));
			expect(inOptions).not.toContain('spendingLimit');
		},
	);

	it('no other operation shows a charge notice or a Spending Limit', () => {
		const charged = new Set(CHARGED.map(([r, o]) => `${r}:${o}`));
		for (const [resource, ops] of Object.entries(EXPECTED)) {
			for (const operation of ops) {
				if (charged.has(`${resource}:${operation}`)) continue;
				const names = shownFor(resource, operation).map((p) => p.name);
				expect({ op: `${resource}:${operation}`, names }).toEqual({
					op: `${resource}:${operation}`,
					names: expect.not.arrayContaining(['spendingLimit', 'chargeNotice']),
				});
			}
		}
	});

	it('the emailing operations say on their panel that running them, Execute step included, emails the candidate', () => {
		const emails = (resource: string, operation: string, values: Record<string, unknown> = {}) =>
			shownFor(resource, operation, values)
				.filter((p) => p.name === 'emailNotice')
				.map((p) => p.displayName);
		const sentence =
			/^Running this node emails (the|each) candidate, also when you click Execute step/;
		for (const operation of ['invite', 'reinterview', 'inviteMany', 'resend']) {
			expect({ operation, notice: emails('interview', operation) }).toEqual({
				operation,
				notice: [expect.stringMatching(sentence)],
			});
		}
		// A private link sends no email, and says nothing of one.
		expect(emails('interview', 'invite', { delivery: 'privateLink' })).toEqual([]);
		expect(emails('interview', 'reinterview', { delivery: 'privateLink' })).toEqual([]);
		expect(emails('interview', 'getQuote')).toEqual([]);
	});

	it('gives each parameter name one type across operations, the Report picker everywhere one report is named', () => {
		const types = new Map<string, Set<string>>();
		const note = (name: string, type: string) => {
			if (!types.has(name)) types.set(name, new Set());
			types.get(name)!.add(type);
		};
		for (const p of properties) {
			note(p.name, p.type);
			if (p.type === 'collection' || p.type === 'fixedCollection')
				for (const o of p.options as INodeProperties[])
					if ('type' in o) note(`${p.name}.${o.name}`, o.type);
		}
		const mixed = [...types]
			.filter(([, set]) => set.size > 1)
			.map(([name, set]) => [name, [...set]]);
		expect(mixed).toEqual([]);
		expect([...types.get('reportId')!]).toEqual(['resourceLocator']);
	});
});
