/**
 * What n8n's nodes panel lists for the package, computed as the editor computes it: the editor's action generation
 * (editor-ui's node creator, `useActionsGenerator`: triggersCategory, operationsCategory, resourceCategories, and
 * generateMergedNodesAndActions, which merges "<name>Trigger" into the node "<name>"), in its two forms:
 * - n8n 2.41 keeps a `resource` or `operation` property only when its `@version` display condition holds for the
 *   node's default version;
 * - n8n 1.123 takes every property named `resource`, whatever its display conditions.
 * Both list each operation once per `resource` property, so the action node has one. The real editor's count is
 * the browser test's (test/e2e/*.browser.test.ts).
 */
import {
	NodeHelpers,
	type INodeProperties,
	type INodePropertyOptions,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { RecruitingAnalysis } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { RecruitingAnalysisFeedTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { RecruitingAnalysisTrigger } from '../../../nodes/RecruitingAnalysis/RecruitingAnalysisTrigger.node';

type Line = '2.41' | '1.123';

interface PanelAction {
	node: string;
	category: 'Actions' | 'Triggers';
	actionKey: string;
	displayName: string;
	description: string;
	values: Record<string, unknown>;
}

const PACKAGE = 'n8n-nodes-recruiting-analysis';

/** A description as the editor receives it: the type's name carries the package. */
function listed(description: INodeTypeDescription): INodeTypeDescription {
	return { ...description, name: `${PACKAGE}.${description.name}` };
}

function defaultVersion(d: INodeTypeDescription): number {
	if (typeof d.defaultVersion === 'number') return d.defaultVersion;
	return Array.isArray(d.version) ? Math.max(...d.version) : d.version;
}

/** 2.41's filter: a property with a `@version` condition counts only when it holds for the default version. */
function forVersion(line: Line, property: INodeProperties, version: number): boolean {
	if (line === '1.123') return true;
	const condition = property.displayOptions?.show?.['@version'];
	return condition ? NodeHelpers.checkConditions(condition, [version]) : true;
}

function base(d: INodeTypeDescription) {
	return { node: d.name, category: d.group.includes('trigger') ? 'Triggers' : 'Actions' } as const;
}

function triggersCategory(d: INodeTypeDescription): PanelAction[] {
	if (!d.displayName.toLowerCase().includes('trigger')) return [];
	const events = d.properties.find((p) =>
		['event', 'events', 'trigger on'].includes(p.displayName.toLowerCase()),
	);
	if (!events?.options) {
		return [
			{
				...base(d),
				actionKey: 'placeholder_recommended',
				displayName: `On new ${d.displayName.replace('Trigger', '').trimEnd()} event`,
				description: '',
				values: {},
			},
		];
	}
	return (events.options as INodePropertyOptions[])
		.filter((o) => !['*', '', ' '].includes(o.name))
		.map((o) => ({
			...base(d),
			actionKey: String(o.value),
			displayName: o.action ?? `On ${o.name}`,
			description: o.description ?? '',
			values: { [events.name]: events.type === 'multiOptions' ? [o.value] : o.value },
		}));
}

function operationsCategory(line: Line, d: INodeTypeDescription): PanelAction[] {
	const version = defaultVersion(d);
	if (d.properties.some((p) => p.name === 'resource' && forVersion(line, p, version))) return [];
	const operation =
		d.properties.find(
			(p) => p.name.toLowerCase() === 'operation' && forVersion(line, p, version),
		) ?? d.properties.find((p) => p.name.toLowerCase() === 'operation');
	if (!operation?.options) return [];
	return (operation.options as INodePropertyOptions[])
		.filter((o) => !['*', '', ' '].includes(o.name))
		.map((o) => ({
			...base(d),
			actionKey: String(o.value),
			displayName: o.action ?? o.name,
			description: o.description ?? '',
			values: { [operation.name]: o.value },
		}));
}

function resourceCategories(line: Line, d: INodeTypeDescription): PanelAction[] {
	const version = defaultVersion(d);
	const versions = Array.isArray(d.version) ? d.version : [d.version];
	const actions: PanelAction[] = [];
	for (const resource of d.properties.filter(
		(p) => p.name === 'resource' && forVersion(line, p, version),
	)) {
		const options = (resource.options ?? []) as INodePropertyOptions[];
		for (const option of options) {
			const operations = d.properties.find((p) => {
				if (p.name !== 'operation') return false;
				const matches =
					p.displayOptions?.show?.resource?.includes(option.value) ?? options.length === 1;
				const condition = p.displayOptions?.show?.['@version'];
				const inVersion =
					line === '2.41'
						? forVersion(line, p, version)
						: !condition || condition.some((v) => typeof v === 'number' && versions.includes(v));
				return matches && inVersion;
			});
			if (!operations?.options) continue;
			for (const o of operations.options as INodePropertyOptions[]) {
				actions.push({
					...base(d),
					actionKey: String(o.value),
					displayName: o.action ?? `${option.name} ${o.name}`,
					description: o.description ?? '',
					values: { resource: option.value, operation: o.value },
				});
			}
		}
	}
	return actions;
}

/** The panel: each node's entry (name, description) and its actions, triggers merged into their node. */
function panel(line: Line, descriptions: INodeTypeDescription[]) {
	const generate = (d: INodeTypeDescription) => [
		...triggersCategory(d),
		...operationsCategory(line, d),
		...resourceCategories(line, d),
	];
	const filter = (actions: PanelAction[]) =>
		actions.length <= 1
			? []
			: actions.filter((a) => a.actionKey !== 'placeholder_recommended' || actions.length > 1);
	const actions: Record<string, PanelAction[]> = {};
	const entries: Array<{ name: string; description: string }> = [];
	for (const app of descriptions.filter((d) => !d.group.includes('trigger'))) {
		actions[app.name] = generate(app);
		entries.push({ name: app.name, description: app.description });
	}
	for (const trigger of descriptions.filter((d) => d.group.includes('trigger'))) {
		const appName = trigger.name.replace('Trigger', '');
		const app = entries.find((e) => e.name === appName);
		if (app && actions[appName]?.length > 0) {
			actions[appName] = filter([...actions[appName], ...generate(trigger)]);
			app.description = trigger.description;
		} else {
			actions[trigger.name] = filter(generate(trigger));
			entries.push({ name: trigger.name, description: trigger.description });
		}
	}
	return { actions, entries };
}

const action = new RecruitingAnalysis().description;
const descriptions = [
	action,
	new RecruitingAnalysisTrigger().description,
	new RecruitingAnalysisFeedTrigger().description,
].map(listed);

/** Every operation of the action node with its own action name and description, read from its selectors. */
function operations(): Array<{
	resource: string;
	operation: string;
	action: string;
	description: string;
}> {
	const seen = new Map<
		string,
		{ resource: string; operation: string; action: string; description: string }
	>();
	for (const p of action.properties) {
		if (p.name !== 'operation' || p.displayOptions?.show?.['@tool']?.[0] === true) continue;
		const resource = String(p.displayOptions?.show?.resource?.[0]);
		for (const o of p.options as INodePropertyOptions[]) {
			seen.set(`${resource}:${String(o.value)}`, {
				resource,
				operation: String(o.value),
				action: String(o.action),
				description: String(o.description),
			});
		}
	}
	return [...seen.values()];
}

describe.each<Line>(['2.41', '1.123'])("n8n %s's nodes panel", (line) => {
	const { actions, entries } = panel(line, descriptions);
	const merged = actions[`${PACKAGE}.recruitingAnalysis`];
	const listedActions = merged.filter((a) => a.category === 'Actions');

	it('lists each of the 31 operations once, as one action with its own name and description', () => {
		const expected = operations();
		expect(expected).toHaveLength(31);
		expect(listedActions).toHaveLength(31);
		const byKey = (x: { resource: unknown; operation: unknown }) =>
			`${String(x.resource)}:${String(x.operation)}`;
		const shown = listedActions.map((a) => ({
			resource: a.values.resource,
			operation: a.values.operation,
			action: a.displayName,
			description: a.description,
		}));
		// In the panel's order (resources as their selector lists them), compared by operation.
		expect(shown.sort((x, y) => byKey(x).localeCompare(byKey(y)))).toEqual(
			expected.sort((x, y) => byKey(x).localeCompare(byKey(y))),
		);
	});

	it('names each action by its short action, which n8n gives the node it adds: no price, no email note', () => {
		for (const a of listedActions) expect(a.displayName).toMatch(/^[A-Z][a-z]+( [A-Za-z]+){1,4}$/);
		expect(listedActions.map((a) => a.displayName)).toEqual(
			expect.arrayContaining(['Analyze a resume', 'Invite a candidate']),
		);
	});

	it("the merged entry's triggers are the webhook trigger's events, and the feed trigger is an entry of its own", () => {
		const triggers = merged.filter((a) => a.category === 'Triggers');
		expect(triggers.length).toBeGreaterThan(0);
		expect(new Set(triggers.map((a) => a.node))).toEqual(
			new Set([`${PACKAGE}.recruitingAnalysisTrigger`]),
		);
		expect(entries.map((e) => e.name)).toEqual([
			`${PACKAGE}.recruitingAnalysis`,
			`${PACKAGE}.recruitingAnalysisFeedTrigger`,
		]);
	});

	it("the triggers' events are named in words, the raw type still the value", () => {
		const triggers = merged.filter((a) => a.category === 'Triggers');
		const named = triggers.find((a) => (a.values.events as string[])[0] === 'report.result_ready');
		expect(named?.displayName).toBe('On Report Result Ready');
		for (const t of triggers.filter((a) => a.actionKey !== '*'))
			expect({
				value: t.actionKey,
				words: /^On [A-Z][a-z]+( [A-Z][a-z]+)+$/.test(t.displayName),
			}).toEqual({ value: t.actionKey, words: true });
	});

	it("the merged entry shows the webhook trigger's description (n8n's rule), which begins with the action node's", () => {
		const entry = entries.find((e) => e.name === `${PACKAGE}.recruitingAnalysis`)!;
		expect(entry.description).toBe(new RecruitingAnalysisTrigger().description.description);
		expect(entry.description.startsWith(action.description)).toBe(true);
	});
});
